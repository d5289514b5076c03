// Package cli holds the conventions every kbook command shares that are
// no one verb's: the spellings of arguments kbook still accepts (Args) and
// the shell's completion of flag values (Complete), each choice listed
// once, where the flag is defined.
package cli
