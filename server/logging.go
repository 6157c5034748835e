package server

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rs/zerolog"
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
