package main

import (
	"fmt"
	"strings"

	"github.com/leanpipe/leanpipe/config"
	"github.com/leanpipe/leanpipe/flows"
	"github.com/leanpipe/leanpipe/internal/sysmem"
)

// budgetHelp is the help text of every --memory-budget flag.
const budgetHelp = "bound on the estimated memory of a proof (of the proofs running at once, for streams), e.g. 2GiB; " +
	"auto = derived from physical memory, the cgroup limit and ulimit -v, less a margin; 0 = none. A job needing more is refused before any work"

// memBudget is a resolved memory budget: Bytes (0 = none) and what set it.
type memBudget struct {
	Bytes int64
	From  string
	auto  bool // derived from the machine
}

// resolveBudget reads a --memory-budget value ("auto" or a byte count) or a config's
// (config.AutoBudget or a byte count).
func resolveBudget(flag, s string) (memBudget, error) {
	if strings.TrimSpace(s) == "auto" {
		return autoBudget(), nil
	}
	b, err := config.ParseBytes(s)
	if err != nil {
		return memBudget{}, usage("%s: %v (or auto)", flag, err)
	}
	return memBudget{Bytes: b, From: flag}, nil
}

func budgetOf(flag string, b int64) memBudget {
	if b == config.AutoBudget {
		return autoBudget()
	}
	return memBudget{Bytes: b, From: flag}
}

func autoBudget() memBudget {
	b, why := sysmem.Default()
	return memBudget{Bytes: b, From: "the default, from " + why, auto: true}
}

// budgetSummary is a budget in a JSON summary: Setting is "auto" (derived from the
// machine; Bytes says what it came to), "none" or the byte count given.
type budgetSummary struct {
	Setting string `json:"setting"`
	Bytes   int64  `json:"bytes"`
	From    string `json:"from"`
}

func (b memBudget) summary() budgetSummary {
	s := budgetSummary{Setting: fmt.Sprint(b.Bytes), Bytes: b.Bytes, From: b.From}
	switch {
	case b.auto:
		s.Setting = "auto"
	case b.Bytes == 0:
		s.Setting = "none"
	}
	return s
}

// String describes the budget for logs and errors.
func (b memBudget) String() string {
	if b.Bytes == 0 {
		return "none"
	}
	return fmt.Sprintf("%s (%s)", sysmem.Format(b.Bytes), b.From)
}

// check refuses a proof of n instances of fl at rate whose estimate is over the
// budget, before any work: a usage error naming the estimate and the budget.
func (b memBudget) check(what string, fl flows.Flow, n, rate int) error {
	if b.Bytes == 0 {
		return nil
	}
	if est := fl.Estimate(n, rate); est > b.Bytes {
		return usage("%s: %d instances of %s at log_inv_rate %d need an estimated %s, over the memory budget of %s; "+
			"--memory-budget sets it (0 lifts it)", what, n, fl.Name(), rate, sysmem.Format(est), b)
	}
	return nil
}
