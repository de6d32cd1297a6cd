package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestWordsMatchCode: the first line of leanpipe --help names XMSS signature
// aggregation; leanpipe flows gives the xmss-aggregate flow's blocks as 2^21 columns
// (aggregate.LogSize); verify --help says what N binds for each flow.
func TestWordsMatchCode(t *testing.T) {
	_, o, _ := run(t, "--help")
	if first, _, _ := strings.Cut(o, "\n"); !strings.Contains(first, "aggregates XMSS signatures") {
		t.Errorf("--help's first line: %q", first)
	}
	_, o, _ = run(t, "flows")
	if !strings.Contains(o, "one 2^21-column block each") || strings.Contains(o, "2^22") {
		t.Errorf("flows: %s", o)
	}
	_, o, _ = run(t, "verify", "--help")
	for _, want := range []string{"What N binds, per flow:", "blake2s-batch    the slot count", "xmss-aggregate   N is the number of public keys"} {
		if !strings.Contains(o, want) {
			t.Errorf("verify --help lacks %q", want)
		}
	}
}

// outside matches a path that leaves the repository: a parent directory, the
// shared folder beside the clone, an absolute machine path.
var outside = regexp.MustCompile(`\.\./|\bshared/|/work/|/home/|/tmp/`)

// TestPackageDocsStayInRepo: no package's doc comment points at a file outside the
// repository (a reader of a clone, or of pkg.go.dev, has only the repository). The
// vectors' locator is the one package whose job is to find files outside it.
func TestPackageDocsStayInRepo(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if !d.IsDir() {
			return nil
		}
		if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if rel == filepath.Join("internal", "vectors") {
			return nil
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, p := range pkgs {
			for fname, f := range p.Files {
				if f.Doc == nil {
					continue
				}
				checked++
				if m := outside.FindString(f.Doc.Text()); m != "" {
					t.Errorf("%s: the package doc points outside the repository (%q)", fname, m)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("only %d package docs checked", checked)
	}
}

// TestInternalHoldsLibraries: internal/ holds libraries only; programs (package
// main, such as the trace renderer cmd/tracepng) live under cmd/.
func TestInternalHoldsLibraries(t *testing.T) {
	root := filepath.Join("..", "..", "internal")
	dirs := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if d.Name() == "testdata" {
			return filepath.SkipDir
		}
		pkgs, err := parser.ParseDir(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
		if err != nil {
			return err
		}
		dirs++
		for name := range pkgs {
			if name == "main" {
				t.Errorf("%s is a program (package main): it belongs under cmd/", path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if dirs < 3 {
		t.Fatalf("only %d directories under internal/", dirs)
	}
	if _, err := os.Stat(filepath.Join("..", "tracepng", "main.go")); err != nil {
		t.Errorf("the trace renderer: %v", err)
	}
}
