// Package skeleton renders and writes the file trees of kbook's scaffolds
// (template init and --extend, provider init, init docs), so that every
// scaffold writes the same way: all of its files or none.
//
// Render turns an embedded skeleton into files: names ending in .tmpl are
// Go templates with [[ ]] delimiters (Helm's {{ }} pass through). Write
// creates a new directory with the files in one rename; WriteInto adds
// them to a directory that may exist, refusing when any file is already
// there, and takes back what it placed when one cannot be. Neither leaves
// a file half-written.
package skeleton
