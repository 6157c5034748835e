package metrics

// Health: /healthz answers 200 as long as the process serves HTTP, recovering included
// (a large store no longer gets killed by a liveness probe in the middle of its
// recovery, apache/rocketmq #9587); /readyz answers 200 once the node says it started
// and every readiness check passes (for a broker: store recovered, registered with a
// NameServer, writable), 503 otherwise. Both bodies are JSON with the phase, the
// recovery progress and the failing checks.

import (
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Phase is where a node is in its life.
type Phase string

const (
	PhaseStarting   Phase = "starting"   // before the store is opened
	PhaseRecovering Phase = "recovering" // the store is loading / recovering
	PhaseRunning    Phase = "running"    // started
	PhaseDraining   Phase = "draining"   // SIGTERM taken: no new sends routed here, serving the rest until the window ends
	PhaseStopping   Phase = "stopping"   // shutting down
)

// Progress is a store recovery's progress: files and bytes done of the total.
type Progress struct {
	Stage      string `json:"stage"` // what is being done ("commitlog", "consumequeue", ...)
	FilesDone  int    `json:"filesDone"`
	FilesTotal int    `json:"filesTotal"`
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}

// Check is one readiness condition: nil when met, else why not.
type Check struct {
	Name string
	Fn   func() error
}

// Health is a node's liveness and readiness state. Zero value: phase "starting", not
// ready. Safe for concurrent use.
type Health struct {
	mu       sync.Mutex
	phase    Phase
	since    time.Time
	progress *Progress
	checks   []Check
}

// SetPhase records the node's phase.
func (h *Health) SetPhase(p Phase) {
	h.mu.Lock()
	h.phase, h.since = p, time.Now()
	h.mu.Unlock()
}

// SetProgress records recovery progress (it also sets the phase to recovering while
// the node is starting).
func (h *Health) SetProgress(p Progress) {
	h.mu.Lock()
	h.progress = &p
	if h.phase == "" || h.phase == PhaseStarting {
		h.phase, h.since = PhaseRecovering, time.Now()
	}
	h.mu.Unlock()
}

// AddCheck adds a readiness condition.
func (h *Health) AddCheck(name string, fn func() error) {
	h.mu.Lock()
	h.checks = append(h.checks, Check{Name: name, Fn: fn})
	h.mu.Unlock()
}

// Status is the body of /healthz and /readyz.
type Status struct {
	Status   string            `json:"status"` // "alive", "ready", "not ready"
	Phase    Phase             `json:"phase"`
	Since    string            `json:"since,omitempty"`
	Recovery *Progress         `json:"recovery,omitempty"`
	Failing  map[string]string `json:"failing,omitempty"` // readiness check → why not
}

func (h *Health) snapshot() (Status, []Check) {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := Status{Phase: h.phase}
	if st.Phase == "" {
		st.Phase = PhaseStarting
	}
	if !h.since.IsZero() {
		st.Since = h.since.UTC().Format(time.RFC3339Nano)
	}
	if h.progress != nil {
		p := *h.progress
		st.Recovery = &p
	}
	return st, append([]Check(nil), h.checks...)
}

// Ready evaluates readiness: the phase is running and every check passes.
func (h *Health) Ready() Status {
	st, checks := h.snapshot()
	if st.Phase != PhaseRunning {
		st.Failing = map[string]string{"phase": string(st.Phase)}
	}
	for _, c := range checks {
		if err := c.Fn(); err != nil {
			if st.Failing == nil {
				st.Failing = map[string]string{}
			}
			st.Failing[c.Name] = err.Error()
		}
	}
	st.Status = "ready"
	if len(st.Failing) > 0 {
		st.Status = "not ready"
	}
	return st
}

func (h *Health) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	st, _ := h.snapshot()
	st.Status = "alive"
	writeJSON(w, http.StatusOK, st)
}

func (h *Health) serveReadyz(w http.ResponseWriter, _ *http.Request) {
	st := h.Ready()
	code := http.StatusOK
	if st.Status != "ready" {
		code = http.StatusServiceUnavailable
	}
	writeJSON(w, code, st)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
