package stream

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/reugn/go-streams"
)

// The sources emit Envelope[Job] values numbered 0, 1, 2, … in the order they read
// them, and close their outlet at the end of their input or when ctx ends.
var (
	_ streams.Source = (*LineSource)(nil)
	_ streams.Source = (*DirSource)(nil)
	_ streams.Source = (*ChanSource)(nil)
)

// LineSource reads jobs as JSON lines (one object a line; blank lines are skipped)
// from a reader. A line that is not a valid job becomes an envelope carrying its
// error. Relative blocks paths are resolved against base.
type LineSource struct {
	out chan any
	mu  sync.Mutex
	err error
}

type line struct {
	no   int
	data []byte
	err  error
}

// NewLineSource starts reading r. When ctx ends the source stops and closes its
// outlet; a Read blocked in r is left to return on its own.
func NewLineSource(ctx context.Context, r io.Reader, base string) *LineSource {
	s := &LineSource{out: make(chan any)}
	lines := make(chan line)
	stop := make(chan struct{})
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(r, 64<<10)
		for no := 1; ; no++ {
			data, err := readLine(br)
			if err == io.EOF && len(data) == 0 {
				return
			}
			if err != nil && err != io.EOF && !errors.Is(err, errLong) {
				s.mu.Lock()
				s.err = fmt.Errorf("stream: reading jobs: %w", err)
				s.mu.Unlock()
				return
			}
			if errors.Is(err, errLong) {
				data = nil
			} else if len(bytes.TrimSpace(data)) == 0 {
				continue
			} else {
				err = nil
			}
			select {
			case lines <- line{no: no, data: data, err: err}:
			case <-stop:
				return
			}
		}
	}()
	go func() {
		defer close(s.out)
		defer close(stop)
		var seq uint64
		for {
			var l line
			var ok bool
			select {
			case l, ok = <-lines:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
			env := Envelope[Job]{Seq: seq}
			if l.err != nil {
				env.Err = fmt.Errorf("%w: line %d: %v", ErrJob, l.no, l.err)
			} else if env.Val, env.Err = ParseJob(l.data, base, ""); env.Err != nil {
				env.Err = fmt.Errorf("line %d: %w", l.no, env.Err)
			}
			select {
			case s.out <- env:
				seq++
			case <-ctx.Done():
				return
			}
		}
	}()
	return s
}

var errLong = fmt.Errorf("line longer than %d bytes", MaxLineBytes)

// readLine returns the next line without its newline; a line over MaxLineBytes is
// consumed and reported as errLong.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > MaxLineBytes+1 {
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			if err == io.EOF {
				return nil, errLong
			}
			return nil, errLong
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		return buf, err
	}
}

// Err reports a read error that ended the source early (nil at a clean end).
func (s *LineSource) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Out is the source's outlet.
func (s *LineSource) Out() <-chan any { return s.out }

// Via streams the jobs into a flow.
func (s *LineSource) Via(f streams.Flow) streams.Flow {
	go transmit(s, f)
	return f
}

// JobSuffix names job files in a watched directory; a claimed file gets
// takenSuffix appended.
const (
	JobSuffix   = ".job"
	takenSuffix = ".taken"
)

// DirSource watches a directory for job files: DIR/NAME.job holding one JSON job
// (the id defaults to NAME; relative blocks paths are relative to DIR). Writers
// should create a job file under another name (a leading dot is ignored) and rename
// it into place. The source claims a file by renaming it to NAME.job.taken, so a
// job is taken once even across restarts or by several servers; files are taken in
// name order at each poll.
type DirSource struct {
	out chan any
	mu  sync.Mutex
	err error
}

// NewDirSource polls dir every poll (0 means 200 ms) until ctx ends; with once set
// it stops at the first poll that finds no job file.
func NewDirSource(ctx context.Context, dir string, poll time.Duration, once bool) *DirSource {
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	s := &DirSource{out: make(chan any)}
	go func() {
		defer close(s.out)
		var seq uint64
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			names, err := jobFiles(dir)
			if err != nil {
				s.mu.Lock()
				s.err = fmt.Errorf("stream: watching %s: %w", dir, err)
				s.mu.Unlock()
				return
			}
			for _, name := range names {
				if ctx.Err() != nil {
					return
				}
				env, taken := takeJob(dir, name)
				if !taken {
					continue
				}
				env.Seq = seq
				select {
				case s.out <- env:
					seq++
				case <-ctx.Done():
					// Not accepted: put the file back for the next server.
					_ = os.Rename(filepath.Join(dir, name)+takenSuffix, filepath.Join(dir, name))
					return
				}
			}
			if once && len(names) == 0 {
				return
			}
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
		}
	}()
	return s
}

func jobFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if strings.HasSuffix(n, JobSuffix) && !strings.HasPrefix(n, ".") && e.Type().IsRegular() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// takeJob claims and reads one job file; taken is false when another process
// claimed it first.
func takeJob(dir, name string) (env Envelope[Job], taken bool) {
	path := filepath.Join(dir, name)
	claimed := path + takenSuffix
	if err := os.Rename(path, claimed); err != nil {
		return env, false
	}
	id := strings.TrimSuffix(name, JobSuffix)
	f, err := os.Open(claimed)
	if err != nil {
		env.Val.ID, env.Err = id, fmt.Errorf("%w: %s: %v", ErrJob, name, err)
		return env, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxLineBytes+1))
	switch {
	case err != nil:
		env.Err = fmt.Errorf("%w: %s: %v", ErrJob, name, err)
	case len(data) > MaxLineBytes:
		env.Err = fmt.Errorf("%w: %s: over %d bytes", ErrJob, name, MaxLineBytes)
	default:
		env.Val, env.Err = ParseJob(data, dir, id)
		if env.Err != nil {
			env.Err = fmt.Errorf("%s: %w", name, env.Err)
		}
	}
	if env.Val.ID == "" {
		env.Val.ID = id
	}
	return env, true
}

// Err reports a directory error that ended the source (nil otherwise).
func (s *DirSource) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Out is the source's outlet.
func (s *DirSource) Out() <-chan any { return s.out }

// Via streams the jobs into a flow.
func (s *DirSource) Via(f streams.Flow) streams.Flow {
	go transmit(s, f)
	return f
}

// ChanSource streams the jobs a library user sends on a channel, until the channel
// is closed or ctx ends. Jobs are checked by the Prover.
type ChanSource struct{ out chan any }

// NewChanSource starts forwarding jobs.
func NewChanSource(ctx context.Context, jobs <-chan Job) *ChanSource {
	s := &ChanSource{out: make(chan any)}
	go func() {
		defer close(s.out)
		var seq uint64
		for {
			var j Job
			var ok bool
			select {
			case j, ok = <-jobs:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
			select {
			case s.out <- Envelope[Job]{Seq: seq, Val: j}:
				seq++
			case <-ctx.Done():
				return
			}
		}
	}()
	return s
}

// Out is the source's outlet.
func (s *ChanSource) Out() <-chan any { return s.out }

// Via streams the jobs into a flow.
func (s *ChanSource) Via(f streams.Flow) streams.Flow {
	go transmit(s, f)
	return f
}
