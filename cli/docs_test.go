package cli

import (
	"os"
	"testing"
)

func TestComponentsDocIsUpToDate(t *testing.T) {
	want := componentsMarkdown()
	got, err := os.ReadFile("../docs/components.md")
	if err != nil {
		t.Fatalf("%v; run `go run ./cmd/fedlab docs > docs/components.md`", err)
	}
	if string(got) != want {
		t.Fatal("docs/components.md is out of date; run `go run ./cmd/fedlab docs > docs/components.md`")
	}
}
