package config

import (
	"strings"
	"testing"
)

func TestTree(t *testing.T) {
	r, err := Parse([]byte("flow: xmss-aggregate\nsigners: 16\ntree: {leaf: 4}\n"))
	if err != nil || r.Tree == nil || r.Tree.Leaf != 4 || r.Tree.LogInvRate != DefaultTreeRate || r.Batch != 16 {
		t.Fatalf("%+v %v", r.Tree, err)
	}
	r, err = Parse([]byte("flow: xmss-aggregate\ninput: s.json\ntree:\n  leaf: 3\n  log_inv_rate: 3\n"))
	if err != nil || r.Tree.Leaf != 3 || r.Tree.LogInvRate != 3 {
		t.Fatalf("%+v %v", r.Tree, err)
	}
	for _, c := range []struct{ doc, want string }{
		{"flow: xmss-aggregate\nsigners: 4\ntree: {}\n", "give leaf"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: {leaf: 0}\n", "tree.leaf: 0 is out of range"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: {leaf: 2, log_inv_rate: 5}\n", "tree.log_inv_rate: 5 is out of range"},
		{"flow: xmss-aggregate\nsigners: 4\ntree: {leaf: 2, leaf: 2}\n", "key given twice"},
		{"flow: xmss-aggregate\ntree: {leaf: 2}\n", "give signers (the set's size) or input"},
		{"flow: xmss-aggregate\nsigners: 4\ninput: s.json\ntree: {leaf: 2}\n", "give one signature set"},
		{"flow: blake2s-batch\ntree: {leaf: 2}\n", "merges xmss-aggregate proofs; the flow is blake2s-batch"},
		{"flow: xmss-aggregate\nbatch: 4\ntree: {leaf: 2}\n", "with tree, give signers"},
		{"flow: xmss-aggregate\nsigners: 4\nleaves: 2\ntree: {leaf: 2}\n", "leaves: not used with tree"},
	} {
		if _, err := Parse([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
}
