// Package inputfile reads files written by others within bounds: a file
// larger than kbook reads (100 MB of Markdown, a values file that is really
// a disk image) is one clear error naming it, found before anything is
// read, in bounded time and memory, rather than a parse that takes minutes
// and gigabytes; and a chart directory's symbolic links must stay inside
// it, since Helm's loader follows them anywhere (and logs each one).
package inputfile
