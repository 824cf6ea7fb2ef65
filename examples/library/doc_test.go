package library

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocGoLineIsFedlabs: the go.mod of docs/library.md names the Go
// version of fedlab's go.mod (it named go 1.26 while fedlab needs 1.26.8).
func TestDocGoLineIsFedlabs(t *testing.T) {
	goLine := regexp.MustCompile(`(?m)^go .*$`)
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(doc), "module example.com/myexp")
	if i < 0 {
		t.Fatal("docs/library.md has no go.mod of example.com/myexp")
	}
	want, got := goLine.FindString(string(mod)), goLine.FindString(string(doc[i:]))
	if want == "" || got != want {
		t.Errorf("docs/library.md's go.mod says %q, fedlab's go.mod %q", got, want)
	}
}
