module github.com/leanpipe/leanpipe

go 1.26

require golang.org/x/crypto v0.45.0

require golang.org/x/sys v0.38.0 // indirect
