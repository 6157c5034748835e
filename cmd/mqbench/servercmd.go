package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// -server-cmd and -startup-cmd: mqbench starts the server itself, so the measured pid is
// the server's own (no shell in between: the command line is split here, with sh-like
// quoting and leading NAME=value environment assignments), and time from exec to the
// first accepted request is the startup time.

// errBadCommand is returned when a -server-cmd / -startup-cmd line cannot be split.
var errBadCommand = errors.New("mqbench: bad command line")

// errPrep is returned when the -server-prep command fails.
var errPrep = errors.New("mqbench: server preparation failed")

// splitCommand splits a command line into environment assignments and argv. It knows
// single quotes, double quotes (with \" and \\) and backslash escapes; nothing else of
// the shell (no globbing, no variables, no pipes). An unquoted shell operator (; & | < >
// or a backquote) is refused rather than passed on as an argument: `-server-prep "rm -rf
// A B; sync"` once ran rm with the arguments A, "B;" and sync, and the benchmark went on
// with B's store in place and nothing synced. Quote it, or put the commands in a script
// or in sh -c '...'.
func splitCommand(line string) (env, argv []string, err error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, nil, fmt.Errorf("%w: unterminated ' in %q", errBadCommand, line)
			}
			cur.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && (line[i+1] == '"' || line[i+1] == '\\') {
					i++
				}
				cur.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, nil, fmt.Errorf("%w: unterminated \" in %q", errBadCommand, line)
			}
			inWord = true
		case strings.IndexByte(";&|<>`", c) >= 0:
			return nil, nil, fmt.Errorf("%w: %q has the shell operator %q, and mqbench runs commands without a shell: quote it, or use a script or sh -c '...'", errBadCommand, line, c)
		case c == '\\' && i+1 < len(line):
			i++
			cur.WriteByte(line[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	for len(words) > 0 {
		k, _, ok := strings.Cut(words[0], "=")
		if !ok || k == "" || strings.ContainsAny(k, "/.-") {
			break
		}
		env = append(env, words[0])
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, nil, fmt.Errorf("%w: no program in %q", errBadCommand, line)
	}
	return env, words, nil
}

// serverProc is a server process mqbench started.
type serverProc struct {
	cmd     *exec.Cmd
	started time.Time
	logPath string
	tempLog bool // logPath is mqbench's temp file: removed by stop unless keepLog
	keepLog bool // an error message names logPath
	exited  chan struct{}
	waitErr error
}

// startServer starts line with its output appended to logPath (a temp file when empty).
func startServer(line, logPath string) (*serverProc, error) {
	env, argv, err := splitCommand(line)
	if err != nil {
		return nil, err
	}
	var out *os.File
	if logPath == "" {
		out, err = os.CreateTemp("", "mqbench-server-*.log")
	} else {
		out, err = os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("mqbench: server log: %w", err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so a terminal's ^C reaches mqbench only and mqbench stops
	// the server in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p := &serverProc{cmd: cmd, logPath: out.Name(), tempLog: logPath == "", exited: make(chan struct{})}
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, fmt.Errorf("mqbench: start %q: %w", line, err)
	}
	go func() {
		p.waitErr = cmd.Wait()
		out.Close()
		close(p.exited)
	}()
	return p, nil
}

func (p *serverProc) pid() int { return p.cmd.Process.Pid }

// waitReady calls probe every interval until it succeeds and returns the time since the
// process was started. It fails when the process, or other (when not nil: the slave of
// a master), exits, or when the deadline passes.
func (p *serverProc) waitReady(ctx context.Context, probe func() error, interval, timeout time.Duration, other *serverProc) (time.Duration, error) {
	deadline := p.started.Add(timeout)
	var last error
	var otherExited chan struct{} // nil: never ready
	if other != nil {
		otherExited = other.exited
	}
	for {
		if err := probe(); err == nil {
			return time.Since(p.started), nil
		} else {
			last = err
		}
		select {
		case <-p.exited:
			p.keepLog = true
			return 0, fmt.Errorf("mqbench: server exited before accepting a request (%v); its output is in %s", p.waitErr, p.logPath)
		case <-otherExited:
			other.keepLog = true
			return 0, fmt.Errorf("mqbench: %q exited before the server accepted a request (%v); its output is in %s", other.cmd.Path, other.waitErr, other.logPath)
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(interval):
		}
		if time.Now().After(deadline) {
			p.keepLog = true
			return 0, fmt.Errorf("mqbench: server not ready after %v, last probe: %w; its output is in %s", timeout, last, p.logPath)
		}
	}
}

// stop sends SIGTERM to the server's pid and SIGKILL if it has not exited after grace,
// then removes mqbench's temp log unless an error named it (-server-log files are kept).
func (p *serverProc) stop(grace time.Duration) {
	defer func() {
		if p.tempLog && !p.keepLog {
			_ = os.Remove(p.logPath)
		}
	}()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// runPrep runs a -server-prep command line (split like -server-cmd, no shell) to
// completion; its output is returned in the error when it fails.
func runPrep(ctx context.Context, line string) error {
	env, argv, err := splitCommand(line)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%w: %q: %v: %s", errPrep, line, err, strings.TrimSpace(string(out)))
	}
	return nil
}
