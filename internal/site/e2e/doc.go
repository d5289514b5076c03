// Package e2e holds browser tests of the docs site in headless Chromium:
// navigation, badges, search, versions, axe-core, live reload, screenshots.
//
// It holds the end-to-end tests of the docs site in a real headless
// Chromium: navigation, verification badges, the copy button, search, the
// version switcher and banner, dark mode, the mobile layout, accessibility
// (axe-core) and kbook serve's live reload. It also takes the screenshots of
// the closing notes (go test -run TestScreenshots -screenshots DIR). The
// tests skip, saying why, where Chromium, Pagefind or axe-core are not
// installed (make site-tools installs them).
package e2e
