package cli

// The tests run the command line with every fedlab component registered,
// as cmd/fedlab does.
import _ "github.com/fedlab/fedlab/registry/all"
