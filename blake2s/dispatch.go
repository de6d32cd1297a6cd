package blake2s

// impl is an instruction-set level.
type impl int

const (
	levelGeneric impl = iota // portable Go
	levelAVX2                // amd64 AVX2: 8-lane kernel, single-message 128-bit AVX kernel
)

var levelNames = [...]string{levelGeneric: "generic", levelAVX2: "avx2"}

// detected is the highest level this CPU and build support, read once at start-up by
// detectLevel (the one place CPU features are read).
var detected = detectLevel()

// level is the level in use; tests lower it through setLevel.
var level = detected

// Implementation names the instruction-set level in use ("avx2" or "generic").
func Implementation() string { return levelNames[level] }

// setLevel forces level l for a test and returns a function restoring the previous one.
// It panics if l is above what this CPU and build support.
func setLevel(l impl) (restore func()) {
	if l > detected {
		panic("blake2s: level " + levelNames[l] + " not supported here")
	}
	old := level
	level = l
	return func() { level = old }
}

// supportedLevels lists every level this CPU and build can run, lowest first.
func supportedLevels() []impl {
	var ls []impl
	for l := levelGeneric; l <= detected; l++ {
		ls = append(ls, l)
	}
	return ls
}
