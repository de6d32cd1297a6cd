package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// cliEnv, when set, makes the test binary run as the leanpipe command (TestMain), so
// that tests can run the command line in a child process: under resource limits, with
// real signals, or with its own exit status.
const cliEnv = "LEANPIPE_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) != "" {
		setMemoryLimit() // as main does
		os.Exit(execute(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cliCommand is the leanpipe command line args in a child process; with a non-empty
// limitKB the child runs under `ulimit -v limitKB` (set by bash on the child alone).
func cliCommand(t *testing.T, limitKB string, args ...string) *exec.Cmd {
	t.Helper()
	var c *exec.Cmd
	if limitKB == "" {
		c = exec.Command(os.Args[0], args...)
	} else {
		if _, err := exec.LookPath("bash"); err != nil {
			t.Skip("no bash to set ulimit -v on the child")
		}
		c = exec.Command("bash", append([]string{"-c", `ulimit -v ` + limitKB + ` && exec "$0" "$@"`, os.Args[0]}, args...)...)
	}
	c.Env = append(os.Environ(), cliEnv+"=1")
	return c
}

// cli runs the command line in a child process and returns its exit status and output.
func cli(t *testing.T, stdin, limitKB string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	c := cliCommand(t, limitKB, args...)
	c.Stdin = strings.NewReader(stdin)
	var o, e bytes.Buffer
	c.Stdout, c.Stderr = &o, &e
	err := c.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%v: %v", args, err)
	}
	return c.ProcessState.ExitCode(), o.String(), e.String()
}
