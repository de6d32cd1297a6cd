package recursion

import (
	"testing"

	"github.com/leanpipe/leanpipe/aggregate"
	"github.com/leanpipe/leanpipe/circuit"
	"github.com/leanpipe/leanpipe/stages/open"
)

// TestBlockFingerprints pins the block circuits a merge of 200-signature rate-2 leaves
// uses (evaluated from their descriptions, nothing compiled): any change to a block's
// matrices changes what a merged proof proves, and must change MergeLabel too.
func TestBlockFingerprints(t *testing.T) {
	sh, err := aggregate.Flow.Shape(200, 2)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := open.DeriveConfig(sh.StackLog, sh.LogInvRate)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[string]circuit.Matrices{
		"transcript": transcriptLayout().lazy.Described(),
		"grind":      grindLayout().lazy.Described(),
	}
	for l := range 2 {
		qb := queryLayout(l == 0, cfg.BlockLog(l), cfg.MessageLog(l))
		blocks[qb.name] = qb.lazy.Described()
	}
	want := map[string][2]string{
		"transcript":           {"17a3a1b17f118b47c04cc67be3d255b3c5c6c9ebc51b3e41", "7f3a9f8186d266bbdc3159fe7eff622f6cb346b9e3d66de2"},
		"grind":                {"c8942af5fa997f6ee316dc4088d893d99e34a2eebd5912d9", "3e87b5a3dc95feb5ca637e321d29400fd48315000dc6968f"},
		"recursion-q0-d19-m17": {"c220a7a7d1acea42ec995433bf21eea6ca39b4ac1b96bacb", "ba7e1f718fbf31f9754d1d6db4b2ddf4744a772bdd58e968"},
		"recursion-q-d19-m14":  {"d6f3543e1239f419e49437d1e63189765e74d6333945207e", "a8441c499a08df62016970cbe853f772dd4c73315fb43ad2"},
	}
	for name, m := range blocks {
		a, b := circuit.Fingerprint(m, MergeLabel)
		if w, ok := want[name]; !ok || w[0] != a || w[1] != b {
			t.Errorf("%s: fingerprint %s %s, want %s %s", name, a, b, w[0], w[1])
		}
	}
}
