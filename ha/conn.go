package ha

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
)

// conn is one slave's connection on the master (Java: HAConnection): readLoop takes the
// slave's reports, writeLoop streams CommitLog frames. Either one ending shuts both
// down; the first reason is the one logged.
type conn struct {
	m      *Master
	nc     net.Conn
	remote string
	since  time.Time
	log    zerolog.Logger

	acked atomic.Int64  // the newest report, -1 before the first
	idles atomic.Int64  // writeLoop's waits with nothing to send (tests wait on it)
	start int64         // the first report; written by readLoop before first is closed
	first chan struct{} // closed at the first report
	wake  chan struct{} // WakeTransfer; one slot, never blocks
	done  chan struct{} // closed by shut
	once  sync.Once

	// writeLoop's own: the frame header and the two-element vector over it and the
	// mapped body, reused for every frame.
	hdr  [HeaderSize]byte
	vec  [2][]byte
	bufs net.Buffers
}

func newConn(m *Master, nc net.Conn) *conn {
	c := &conn{
		m:      m,
		nc:     nc,
		remote: nc.RemoteAddr().String(),
		since:  time.Now(),
		first:  make(chan struct{}),
		wake:   make(chan struct{}, 1),
		done:   make(chan struct{}),
	}
	c.log = m.log.With().Str("remote", c.remote).Logger()
	c.acked.Store(-1)
	return c
}

// shut closes the connection once, logging why (nil: the master is closing).
func (c *conn) shut(reason error) {
	c.once.Do(func() {
		switch {
		case reason == nil:
		case errors.Is(reason, io.EOF):
			c.log.Info().Err(reason).Msg("ha: slave connection closed")
		default:
			c.log.Warn().Err(reason).Msg("ha: closing slave connection")
		}
		close(c.done)
		_ = c.nc.Close()
		c.m.remove(c)
	})
}

// readLoop reads the slave's 8-byte reports (Java: HAConnection.ReadSocketService). It
// acts on the newest whole report of each read and closes the connection after
// HousekeepingInterval without reading anything.
func (c *conn) readLoop() {
	defer c.m.wg.Done()
	var rr reportReader
	hk := c.m.cfg.HousekeepingInterval
	gotFirst := false
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(hk))
		n, err := c.nc.Read(rr.space())
		if n > 0 {
			if v, ok := rr.filled(n); ok {
				if err := c.onReport(v, !gotFirst); err != nil {
					c.shut(err)
					return
				}
				gotFirst = true
			}
		}
		if err != nil {
			c.shut(readError(err, rr.partial(), hk))
			return
		}
	}
}

// readError says why reading ended.
func readError(err error, partial int, hk time.Duration) error {
	switch {
	case errors.Is(err, net.ErrClosed):
		return nil // we closed it
	case errors.Is(err, os.ErrDeadlineExceeded):
		if partial > 0 {
			return fmt.Errorf("ha: nothing read for %v (housekeeping) with %d bytes of a report pending", hk, partial)
		}
		return fmt.Errorf("ha: nothing read for %v (housekeeping)", hk)
	case errors.Is(err, io.EOF) && partial > 0:
		return fmt.Errorf("ha: slave closed the connection in the middle of a report (%d of %d bytes)", partial, ReportSize)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("ha: slave closed the connection: %w", err)
	}
	return fmt.Errorf("ha: read: %w", err)
}

// onReport checks and records a report (Java: ReadSocketService#processReadEvent).
func (c *conn) onReport(v int64, first bool) error {
	if v < 0 {
		return fmt.Errorf("ha: slave reported a negative offset %d", v)
	}
	if maxOff := c.m.st.MaxPhyOffset(); v > maxOff {
		if first {
			return fmt.Errorf("ha: slave's first report %d is beyond the local commitlog end %d", v, maxOff)
		}
		// Java 4.9.3+: "slave[...] request offset=... greater than local commitLog offset=..."
		return fmt.Errorf("ha: slave request offset %d greater than local commitlog offset %d", v, maxOff)
	}
	if first {
		c.start = v
		c.log.Info().Int64("offset", v).Msg("ha: slave requests offset")
		close(c.first)
	}
	c.acked.Store(v)
	c.m.raiseAck(v)
	return nil
}

// writeLoop streams the CommitLog from where the slave asked (Java:
// HAConnection.WriteSocketService): nothing before the first report; then frames of at
// most TransferBatchSize bytes that never cross a file, written straight from the
// mapping; a heartbeat after HeartbeatInterval of silence; with nothing to send, a wait
// of up to 100 ms or until WakeTransfer.
func (c *conn) writeLoop() {
	defer c.m.wg.Done()
	select {
	case <-c.first:
	case <-c.done:
		return
	}
	st, cfg := c.m.st, c.m.cfg
	next := c.start
	if next == 0 {
		// An empty slave gets the newest file from its start, not the whole history.
		maxOff := st.MaxPhyOffset()
		next = maxOff - maxOff%st.CommitLogFileSize()
	}
	c.log.Info().Int64("offset", next).Msg("ha: transfer starts")
	lastWrite := time.Now()
	timer := time.NewTimer(c.m.idle)
	defer timer.Stop()
	warnedGone := false
	for {
		select {
		case <-c.done:
			return
		default:
		}
		ch := st.CommitLogChunk(next)
		if ch.Data != nil {
			body := ch.Data[:min(len(ch.Data), cfg.TransferBatchSize)]
			err := c.writeFrame(next, body)
			ch.Release() // the mapping was held until the write returned
			if err != nil {
				c.shut(writeError(err))
				return
			}
			next += int64(len(body))
			lastWrite = time.Now()
			continue
		}
		if minOff := st.MinPhyOffset(); !warnedGone && minOff > next {
			// Java only heartbeats from here on, silently; the slave never catches up.
			c.log.Error().Int64("offset", next).Int64("oldest", minOff).
				Msg("ha: the slave needs commitlog data that was deleted here: sending heartbeats only; resync the slave (empty its store) to go on")
			warnedGone = true
		}
		if time.Since(lastWrite) >= cfg.HeartbeatInterval {
			if err := c.writeFrame(next, nil); err != nil {
				c.shut(writeError(err))
				return
			}
			lastWrite = time.Now()
		}
		timer.Reset(c.m.idle)
		c.idles.Add(1)
		select {
		case <-c.wake:
		case <-timer.C:
		case <-c.done:
			return
		}
	}
}

// writeFrame writes header and body with one writev. A write that cannot finish within
// HousekeepingInterval fails (a slave that stopped reading).
func (c *conn) writeFrame(offset int64, body []byte) error {
	putHeader(c.hdr[:], offset, int32(len(body)))
	c.vec[0], c.vec[1] = c.hdr[:], body
	c.bufs = c.vec[:]
	if len(body) == 0 {
		c.bufs = c.vec[:1]
	}
	_ = c.nc.SetWriteDeadline(time.Now().Add(c.m.cfg.HousekeepingInterval))
	_, err := c.bufs.WriteTo(c.nc)
	c.vec[1] = nil
	return err
}

func writeError(err error) error {
	switch {
	case errors.Is(err, net.ErrClosed):
		return nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("ha: slave does not take data: %w", err)
	}
	return fmt.Errorf("ha: write: %w", err)
}
