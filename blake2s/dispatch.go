package blake2s

// impl is an instruction-set level for the many-lane paths.
type impl int

const (
	levelGeneric impl = iota // portable Go
	levelAVX2                // 8-lane AVX2 kernel (amd64)
)

var levelNames = [...]string{levelGeneric: "generic", levelAVX2: "avx2"}

// level is the level in use, chosen once at start-up by detectLevel (the one place CPU
// features are read); tests lower it through setLevel.
var level = detectLevel()

// Implementation names the instruction-set level SumMany and NodeMany use ("avx2" or "generic").
func Implementation() string { return levelNames[level] }

// setLevel forces level l for a test and returns a function restoring the previous one.
// It panics if l is above what this CPU and build support.
func setLevel(l impl) (restore func()) {
	if l > detectLevel() {
		panic("blake2s: level " + levelNames[l] + " not supported here")
	}
	old := level
	level = l
	return func() { level = old }
}

// supportedLevels lists every level this CPU and build can run, lowest first.
func supportedLevels() []impl {
	var ls []impl
	for l := levelGeneric; l <= detectLevel(); l++ {
		ls = append(ls, l)
	}
	return ls
}
