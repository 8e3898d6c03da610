module tlogcheck

go 1.19

require golang.org/x/mod v0.7.0

// Debian's golang-golang-x-mod-dev; build with GOFLAGS=-mod=mod GOPROXY=off.
replace golang.org/x/mod => /usr/share/gocode/src/golang.org/x/mod
