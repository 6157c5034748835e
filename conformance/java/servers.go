package java

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// ErrNoJava is returned by Available and Start when java or mvn is not on PATH.
var ErrNoJava = errors.New("java: java and mvn are required to run the Java servers")

// Options says how to start the Java servers. The zero value is valid: a new temp-free
// layout under Dir (which is required), random free ports, the store under Dir/store.
type Options struct {
	// Dir holds the servers' state: conf, logs, pid files, env (required).
	Dir string
	// StoreDir is the broker's storePathRootDir; empty means Dir/store.
	StoreDir string
	// NamesrvPort and BrokerPort pick the ports; 0 means a free random one. The broker also
	// listens on BrokerPort-2 (VIP channel) and BrokerPort+1 (HA).
	NamesrvPort, BrokerPort int
	// Broker holds extra broker.conf lines ("key=value"), appended after the defaults
	// (so they override them), e.g. "mappedFileSizeCommitLog=1048576".
	Broker []string
	// Namesrv holds extra namesrv.conf lines.
	Namesrv []string
	// Heap replaces the JVM memory flags (default "-Xms1g -Xmx1g -XX:MaxDirectMemorySize=1g").
	Heap string
	// NoNamesrv starts the broker alone: it registers with the name servers a Broker line
	// "namesrvAddr=..." names (e.g. Skyrocket's); NamesrvAddr is then "" and NamesrvPID 0.
	NoNamesrv bool
}

// Servers is a running Java NameServer + Broker pair.
type Servers struct {
	NamesrvAddr string // 127.0.0.1:port; "" with Options.NoNamesrv
	BrokerAddr  string // 127.0.0.1:port, as registered with the NameServer and stored in messages
	StoreRoot   string // absolute storePathRootDir
	NamesrvPID  int    // 0 with Options.NoNamesrv
	BrokerPID   int
	dir         string
}

// Script is the path of javaservers.sh (found next to this source file).
func Script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "javaservers.sh")
}

// Available returns ErrNoJava when java or mvn is missing.
func Available() error {
	for _, tool := range []string{"java", "mvn", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: %s not found", ErrNoJava, tool)
		}
	}
	return nil
}

// Start starts the NameServer (unless NoNamesrv), then the Broker, and returns once both answer on their ports
// and have logged "boot success". On failure both are stopped and the error carries the
// script's output (the tail of the failing server's log).
func Start(ctx context.Context, o Options) (*Servers, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if o.Dir == "" {
		return nil, errors.New("java: Options.Dir is required")
	}
	args := []string{"start", "--dir", o.Dir}
	if o.StoreDir != "" {
		args = append(args, "--store", o.StoreDir)
	}
	if o.NamesrvPort != 0 {
		args = append(args, "--namesrv-port", strconv.Itoa(o.NamesrvPort))
	}
	if o.BrokerPort != 0 {
		args = append(args, "--broker-port", strconv.Itoa(o.BrokerPort))
	}
	if o.NoNamesrv {
		args = append(args, "--no-namesrv")
	}
	for _, kv := range o.Broker {
		args = append(args, "--set", kv)
	}
	for _, kv := range o.Namesrv {
		args = append(args, "--namesrv-set", kv)
	}
	cmd := exec.CommandContext(ctx, "bash", append([]string{Script()}, args...)...)
	if o.Heap != "" {
		cmd.Env = append(os.Environ(), "SERVER_HEAP="+o.Heap)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("java: start the Java servers: %w\n%s", err, out.String())
	}
	return parseEnv(o.Dir, out.Bytes())
}

// parseEnv reads the KEY=VALUE lines javaservers.sh prints once the servers are up.
func parseEnv(dir string, b []byte) (*Servers, error) {
	s := &Servers{dir: dir}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "NAMESRV_ADDR":
			s.NamesrvAddr = v
		case "BROKER_ADDR":
			s.BrokerAddr = v
		case "STORE_ROOT":
			s.StoreRoot = v
		case "NAMESRV_PID":
			s.NamesrvPID, _ = strconv.Atoi(v)
		case "BROKER_PID":
			s.BrokerPID, _ = strconv.Atoi(v)
		}
	}
	if s.BrokerAddr == "" || s.BrokerPID == 0 || (s.NamesrvAddr == "") != (s.NamesrvPID == 0) {
		return nil, fmt.Errorf("java: javaservers.sh printed no addresses:\n%s", b)
	}
	return s, nil
}

// Tool runs a class of the 4.9.8 tools module (the Java client; lib.sh's run_tool, built
// by run.sh build) and returns its combined output.
func Tool(ctx context.Context, main string, args ...string) ([]byte, error) {
	return runJava(ctx, "run_tool", main, args)
}

// Client42 runs a class of the client42 module (the 4.2.0 Java client; lib.sh's
// run_client42, built by run.sh build) and returns its combined output.
func Client42(ctx context.Context, main string, args ...string) ([]byte, error) {
	return runJava(ctx, "run_client42", main, args)
}

func runJava(ctx context.Context, runner, main string, args []string) ([]byte, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	lib := filepath.Join(filepath.Dir(Script()), "lib.sh")
	script := `source "$1" && shift && ` + runner + ` "$@"`
	cmd := exec.CommandContext(ctx, "bash", append([]string{"-c", script, "tool", lib, main}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("java: %s: %w\n%s", main, err, out)
	}
	return out, nil
}

// Stop sends SIGTERM to the broker, then the NameServer, and waits for each to exit
// (SIGKILL after 60 s).
func (s *Servers) Stop() error {
	return s.run("stop")
}

// StopBroker stops the broker alone, as Stop does; the NameServer stays up (and drops the
// broker from its routes when the connection closes). Stop later stops the NameServer.
func (s *Servers) StopBroker() error {
	return s.run("stop-broker")
}

// Kill sends SIGKILL to both servers (a crash: the broker's abort file stays).
func (s *Servers) Kill() error {
	return s.run("kill")
}

func (s *Servers) run(verb string) error {
	out, err := exec.Command("bash", Script(), verb, "--dir", s.dir).CombinedOutput()
	if err != nil {
		return fmt.Errorf("java: %s the Java servers: %w\n%s", verb, err, out)
	}
	return nil
}
