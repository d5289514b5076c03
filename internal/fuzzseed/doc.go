// Package fuzzseed is a test helper for kbook's fuzz tests: it adds the
// seed corpus from testdata files (Add, Strings) and checks the property
// every file loader's fuzz test states, that an error names the file it
// is about (ErrorNamesFile). Only tests import it.
package fuzzseed
