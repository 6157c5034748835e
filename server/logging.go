package server

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"gopkg.in/natefinch/lumberjack.v2"
)

// LogLevelEnv is the environment variable the binaries read for their log level when
// -log-level is not given.
const LogLevelEnv = "SKYROCKET_LOG_LEVEL"

// DefaultLogLevel returns $SKYROCKET_LOG_LEVEL, or "info".
func DefaultLogLevel() string {
	if v := strings.TrimSpace(os.Getenv(LogLevelEnv)); v != "" {
		return v
	}
	return "info"
}

// NewConsoleLogger returns the logger the binaries hand to the servers: human-readable
// lines on w (stderr) with a millisecond timestamp and the level, at level (trace, debug,
// info, warn, error, disabled). It configures nothing global; cmd/ decides what to do
// with it.
func NewConsoleLogger(w io.Writer, level string) (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(strings.ToLower(strings.TrimSpace(level)))
	if err != nil || lvl == zerolog.NoLevel {
		return zerolog.Nop(), fmt.Errorf("server: log level %q: want trace, debug, info, warn, error or disabled", level)
	}
	cw := zerolog.ConsoleWriter{Out: w, TimeFormat: "2006-01-02 15:04:05.000", NoColor: true}
	return zerolog.New(cw).Level(lvl).Hook(msTimestamp{}), nil
}

// LogDirEnv is the environment variable with the binaries' -log-dir default.
const LogDirEnv = "SKYROCKET_LOG_DIR"

// JavaLogDir is where Java's servers write their logs: ~/logs/rocketmqlogs.
func JavaLogDir() string {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "."
	}
	return filepath.Join(home, "logs", "rocketmqlogs")
}

// Log file rotation, Java's logback_broker.xml sizes for broker.log: 128 MB per file, 20
// rolled files kept, gzipped (Java rolls into otherdays/; lumberjack keeps them beside the
// live file as name-<time>.log.gz).
const (
	logFileMaxMB   = 128
	logFileBackups = 20
)

// NewFileLogger is NewConsoleLogger writing to dir/name (broker.log, namesrv.log: Java's
// names), rotated by size with gzip, instead of stderr. Close the returned closer at exit.
func NewFileLogger(dir, name, level string) (zerolog.Logger, io.Closer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("server: log dir: %w", err)
	}
	lj := &lumberjack.Logger{Filename: filepath.Join(dir, name), MaxSize: logFileMaxMB, MaxBackups: logFileBackups, Compress: true}
	// Open now: a directory that cannot be written is an error at start, not a lost line.
	if _, err := lj.Write(nil); err != nil {
		return zerolog.Nop(), nil, fmt.Errorf("server: log file: %w", err)
	}
	log, err := NewConsoleLogger(lj, level)
	if err != nil {
		_ = lj.Close()
		return log, nil, err
	}
	return log, lj, nil
}

// msTimestamp stamps each event with RFC 3339 time to the nanosecond. zerolog's own
// Timestamp() follows the global TimeFieldFormat (whole seconds by default), which only
// cmd/ may change; the console writer parses either.
type msTimestamp struct{}

func (msTimestamp) Run(e *zerolog.Event, _ zerolog.Level, _ string) {
	e.Str(zerolog.TimestampFieldName, time.Now().Format(time.RFC3339Nano))
}

// ShutdownTimeout is how long the binaries let Node.Shutdown drain before giving up
// (Java's shutdown hook has no bound; a bounded one keeps a stuck client from holding a
// restart hostage, and the store recovers from an unclean stop anyway).
const ShutdownTimeout = 30 * time.Second
