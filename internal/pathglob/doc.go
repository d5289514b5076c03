// Package pathglob matches slash-separated paths against globs in which
// "**" stands for any number of folders, as kbook.yaml's run.pages and an
// overlay rule's page are written.
package pathglob
