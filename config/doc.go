// Package config reads the YAML run descriptions of `leanpipe run`.
//
// A config names a flow and its shape; every key is checked (unknown keys, wrong
// types and out-of-range values are errors naming the key and its line), and
// omitted keys take the embedded defaults, so an empty file is a valid run.
package config
