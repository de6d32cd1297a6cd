package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leanpipe/leanpipe/graph"
	"github.com/leanpipe/leanpipe/observe"
)

// TestRender draws a two-proof trace and finds each stage's colour where its event
// is: on the scheduler's core rows and in the proofs' rows.
func TestRender(t *testing.T) {
	t0 := time.Unix(1000, 0)
	ms := time.Millisecond
	tr := observe.NewTrace()
	tr.Add("job a", t0, t0.Add(10*ms), []graph.Span{
		{Name: "witness", Start: t0, Duration: 4 * ms, Workers: 1, Cores: []int{0}},
		{Name: "open", Start: t0.Add(5 * ms), Duration: 5 * ms, Workers: 2, Cores: []int{0, 1}},
	})
	tr.Add("job b", t0, t0.Add(4*ms), []graph.Span{
		{Name: "witness", Start: t0.Add(ms), Duration: 3 * ms, Workers: 1, Cores: []int{1}},
	})
	dir := t.TempDir()
	in, out := filepath.Join(dir, "t.json"), filepath.Join(dir, "t.png")
	if err := tr.WriteFile(in); err != nil {
		t.Fatal(err)
	}
	if err := run(in, out, "test", 800); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 800 {
		t.Fatalf("width %d", img.Bounds().Dx())
	}
	// Count pixels of the first two stage colours (witness, open).
	count := map[[3]uint32]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			count[[3]uint32{r >> 8, g >> 8, bl >> 8}]++
		}
	}
	for i, name := range []string{"witness", "open"} {
		c := palette[i]
		if count[[3]uint32{uint32(c.R), uint32(c.G), uint32(c.B)}] < 500 {
			t.Errorf("stage %s: colour %v barely drawn (%d pixels)", name, c, count[[3]uint32{uint32(c.R), uint32(c.G), uint32(c.B)}])
		}
	}
	// A trace that breaks CheckTrace is refused.
	if _, err := Render([]byte(`{"traceEvents":[{"name":"x","cat":"stage","ph":"X","ts":0,"dur":1,"pid":2,"tid":1}]}`), "", 400); err == nil {
		t.Fatal("a stage without a proof was drawn")
	}
}
