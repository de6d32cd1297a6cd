// Command tracepng draws a leanpipe trace file (observe.Trace's Chrome trace-event
// JSON) as a PNG, the way a trace viewer lays it out: one band per process (the
// scheduler's core rows, then each proof), one row per thread, each complete event
// a box on its row at its time. It checks the trace first (observe.CheckTrace). It
// is how docs/ pictures are made from real runs, without a browser:
//
//	go run ./cmd/tracepng -title "…" TRACE.json OUT.png
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"sort"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/leanpipe/leanpipe/internal/atomicfile"
	"github.com/leanpipe/leanpipe/observe"
)

func main() {
	title := flag.String("title", "", "title line above the picture")
	width := flag.Int("width", 1400, "picture width in pixels")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: tracepng [-title T] [-width W] TRACE.json OUT.png")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), *title, *width); err != nil {
		fmt.Fprintln(os.Stderr, "tracepng:", err)
		os.Exit(1)
	}
}

func run(in, out, title string, width int) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	img, err := Render(data, title, width)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return atomicfile.Write(out, b.Bytes())
}

// Layout, in pixels.
const (
	margin   = 12
	labelW   = 210 // row labels on the left
	rowH     = 20
	bandGap  = 8
	headerH  = 16
	axisH    = 28
	titleH   = 22
	legendH  = 22
	minLabel = 3 // characters an event needs room for to be labelled
)

var (
	white  = color.RGBA{255, 255, 255, 255}
	ink    = color.RGBA{30, 30, 30, 255}
	grey   = color.RGBA{120, 120, 120, 255}
	rule   = color.RGBA{225, 225, 225, 255}
	proofC = color.RGBA{205, 212, 222, 255}
	// palette colours proofs on the scheduler's rows and stages in the proofs.
	palette = []color.RGBA{
		{66, 133, 244, 255}, {234, 67, 53, 255}, {251, 188, 5, 255}, {52, 168, 83, 255},
		{171, 71, 188, 255}, {0, 172, 193, 255}, {255, 112, 67, 255}, {158, 157, 36, 255},
	}
)

type row struct {
	pid, tid int
	label    string
	events   []observe.Event
}

type band struct {
	pid  int
	name string
	rows []*row
}

// Render draws a trace file.
func Render(data []byte, title string, width int) (*image.RGBA, error) {
	f, err := observe.ParseTrace(data)
	if err != nil {
		return nil, err
	}
	if _, err := observe.CheckTrace(f); err != nil {
		return nil, err
	}
	bands := map[int]*band{}
	rows := map[[2]int]*row{}
	getBand := func(pid int) *band {
		b := bands[pid]
		if b == nil {
			b = &band{pid: pid, name: fmt.Sprintf("process %d", pid)}
			bands[pid] = b
		}
		return b
	}
	getRow := func(pid, tid int) *row {
		r := rows[[2]int{pid, tid}]
		if r == nil {
			r = &row{pid: pid, tid: tid, label: fmt.Sprintf("thread %d", tid)}
			rows[[2]int{pid, tid}] = r
			b := getBand(pid)
			b.rows = append(b.rows, r)
		}
		return r
	}
	var t1 time.Duration
	stageColour := map[string]color.RGBA{} // in the order stages first appear
	first := map[string]int{}
	for _, e := range f.TraceEvents {
		switch {
		case e.Ph == "M" && e.Name == "process_name":
			getBand(e.PID).name, _ = e.Args["name"].(string)
		case e.Ph == "M" && e.Name == "thread_name":
			getRow(e.PID, e.TID).label, _ = e.Args["name"].(string)
		case e.Ph == "X":
			r := getRow(e.PID, e.TID)
			r.events = append(r.events, e)
			_, end, _ := e.Span()
			t1 = max(t1, end)
			if e.Cat == observe.CatStage {
				if _, ok := stageColour[e.Name]; !ok {
					first[e.Name] = len(stageColour)
					stageColour[e.Name] = palette[len(stageColour)%len(palette)]
				}
			}
		}
	}
	if t1 <= 0 {
		return nil, fmt.Errorf("the trace has no events")
	}
	var order []*band
	for _, b := range bands {
		if len(b.rows) > 0 {
			sort.Slice(b.rows, func(i, j int) bool { return b.rows[i].tid < b.rows[j].tid })
			order = append(order, b)
		}
	}
	sort.Slice(order, func(i, j int) bool { return order[i].pid < order[j].pid })

	height := margin + titleH + legendH + axisH
	for _, b := range order {
		height += headerH + len(b.rows)*rowH + bandGap
	}
	height += margin
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), &image.Uniform{white}, image.Point{}, draw.Src)
	x0, x1 := margin+labelW, width-margin
	xOf := func(d time.Duration) int { return x0 + int(float64(x1-x0)*float64(d)/float64(t1)) }

	y := margin
	text(img, margin, y+13, title, ink)
	y += titleH
	// Legend: the stage colours.
	lx := margin
	text(img, lx, y+13, "stages:", grey)
	lx += 8 * 7
	names := make([]string, 0, len(stageColour))
	for n := range stageColour {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return first[names[i]] < first[names[j]] })
	for _, n := range names {
		fill(img, image.Rect(lx, y+3, lx+12, y+15), stageColour[n])
		text(img, lx+16, y+13, n, ink)
		lx += 16 + 7*len(n) + 14
	}
	y += legendH
	// Time axis.
	step := tick(t1)
	for t := time.Duration(0); t <= t1; t += step {
		x := xOf(t)
		fill(img, image.Rect(x, y+axisH-6, x+1, height-margin), rule)
		text(img, x+2, y+13, fmtDur(t), grey)
	}
	y += axisH
	for _, b := range order {
		text(img, margin, y+12, clip(b.name, (width-2*margin)/7), ink)
		y += headerH
		for _, r := range b.rows {
			text(img, margin+10, y+14, clip(r.label, (labelW-14)/7), grey)
			fill(img, image.Rect(x0, y+rowH-1, x1, y+rowH), rule)
			for _, e := range r.events {
				s, end, _ := e.Span()
				rect := image.Rect(xOf(s), y+2, max(xOf(end), xOf(s)+1), y+rowH-2)
				c := proofC
				label := e.Name
				switch e.Cat {
				case observe.CatStage:
					c = stageColour[e.Name]
				case observe.CatGrant:
					stage, _ := e.Args["stage"].(string)
					c = stageColour[stage]
					if p, ok := e.Args["proof"]; ok {
						label = fmt.Sprintf("#%v %s", p, stage)
					}
				}
				fill(img, rect, c)
				if e.Cat == observe.CatGrant { // a strip in the proof's shade
					fill(img, image.Rect(rect.Min.X, rect.Min.Y, rect.Max.X, rect.Min.Y+3), proofShade(e.Args["proof"]))
				}
				if room := (rect.Dx() - 4) / 7; room >= minLabel {
					fg := ink
					if e.Cat != observe.CatProof {
						fg = white
					}
					text(img, rect.Min.X+3, y+14, clip(label, room), fg)
				}
			}
			y += rowH
		}
		y += bandGap
	}
	return img, nil
}

// proofShade is a dark shade per proof index, for the scheduler's rows.
func proofShade(p any) color.RGBA {
	shades := []color.RGBA{{20, 20, 20, 255}, {140, 140, 140, 255}, {90, 50, 20, 255}, {20, 70, 110, 255}}
	n, _ := p.(json.Number)
	i, _ := n.Int64()
	return shades[int(i)%len(shades)]
}

// tick picks an axis step giving about ten ticks.
func tick(span time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond,
		20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
		time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second, time.Minute} {
		if span/s <= 12 {
			return s
		}
	}
	return span / 10
}

func fmtDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n <= 1 {
		return ""
	}
	return s[:n-1] + "~"
}

func fill(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

func text(img *image.RGBA, x, y int, s string, c color.RGBA) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
