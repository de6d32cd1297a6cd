package reduce

import "sync"

// parallelRange splits [0, n) into at most workers contiguous chunks and calls
// fn(lo, hi) for each on its own goroutine (inline when one chunk suffices).
// Chunk boundaries are multiples of align (a power of two or 1). Every caller
// writes disjoint outputs per chunk, so results never depend on workers.
func parallelRange(n, workers, align int, fn func(lo, hi int)) {
	parallelRangeW(n, workers, align, func(_, lo, hi int) { fn(lo, hi) })
}

// parallelRangeW is parallelRange passing each chunk its index w < workers.
func parallelRangeW(n, workers, align int, fn func(w, lo, hi int)) {
	if align < 1 {
		align = 1
	}
	units := (n + align - 1) / align
	if workers > units {
		workers = units
	}
	if workers <= 1 {
		if n > 0 {
			fn(0, 0, n)
		}
		return
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		lo := units * w / workers * align
		hi := units * (w + 1) / workers * align
		if hi > n {
			hi = n
		}
		if lo >= hi {
			continue
		}
		wg.Add(1)
		go func(w, lo, hi int) {
			defer wg.Done()
			fn(w, lo, hi)
		}(w, lo, hi)
	}
	wg.Wait()
}
