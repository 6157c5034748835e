package acl

// Hot reload (Java: srvutil/AclFileWatchService, 4.9.8): every WatchInterval a background
// goroutine lists the ACL files and compares their modification times with the last
// look. A different number of files reloads everything; a changed file reloads too, and
// the access keys it no longer defines stay known to the validator (Java keeps them in
// its accessKeyTable), answering "No PlainAccessResource for accessKey=".

import (
	"os"
	"time"
)

// Start runs the watcher until Close.
func (v *Validator) Start() {
	if !v.started.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer close(v.done)
		t := time.NewTicker(v.interval)
		defer t.Stop()
		for {
			select {
			case <-v.stop:
				return
			case <-t.C:
				v.Poll()
			}
		}
	}()
}

// Close stops the watcher started by Start; Wait waits for it.
func (v *Validator) Close() {
	v.once.Do(func() {
		close(v.stop)
	})
}

// Wait returns when the watcher has stopped (after Close); at once if it never started.
func (v *Validator) Wait() {
	if v.started.Load() {
		<-v.done
	}
}

// Poll looks at the files once and reloads when they changed, as one watcher tick does.
// It reports whether a reload was attempted.
func (v *Validator) Poll() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	old := v.cur.Load()
	files := listFiles(v.dir, v.defaultFile, v.toolsFile)
	countChanged := len(files) != len(old.files)
	var changed []string
	if !countChanged {
		for _, f := range files {
			var m int64
			if st, err := os.Stat(f); err == nil {
				m = st.ModTime().UnixNano()
			}
			if prev, ok := old.mtimes[f]; !ok || prev != m {
				changed = append(changed, f)
			}
		}
		if len(changed) == 0 {
			return false
		}
	}
	s, err := v.load()
	if err != nil {
		v.log.Error().Err(err).Msg("acl: reload failed; the previous configuration stays in force")
		// Java records the new modification times before it loads: a bad file is not
		// read again until it changes again.
		keep := *old
		keep.files = files
		keep.mtimes = map[string]int64{}
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				keep.mtimes[f] = st.ModTime().UnixNano()
			}
		}
		v.cur.Store(&keep)
		return true
	}
	if !countChanged {
		for ak := range old.stale {
			if _, ok := s.accounts[ak]; !ok {
				s.stale[ak] = true
			}
		}
		for ak, f := range old.owner {
			if _, ok := s.accounts[ak]; ok {
				continue
			}
			for _, c := range changed {
				if c == f {
					s.stale[ak] = true
				}
			}
		}
	}
	v.cur.Store(s)
	v.log.Info().Int("files", len(s.files)).Int("accounts", len(s.accounts)).Msg("acl: configuration reloaded")
	return true
}
