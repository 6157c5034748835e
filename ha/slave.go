package ha

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/skyrocket-mq/skyrocket/codec/message"
	"github.com/skyrocket-mq/skyrocket/store"
)

// Slave follows a master: it connects to the master's HA address, reports its CommitLog
// end, and appends the frames it receives to its store (Java: HAService.HAClient). The
// store's dispatch then builds ConsumeQueues and index from them.
type Slave struct {
	st    *store.Store
	cfg   Config
	log   zerolog.Logger
	retry time.Duration // reconnectDelay; tests shorten it before Start
	// dial connects to the master; tests replace it (net.Pipe) before Start.
	dial func(ctx context.Context, addr string) (net.Conn, error)
	// appended, when set, runs after each store append (tests: a crash snapshot taken
	// between two appends).
	appended func()

	addrMu sync.Mutex // a leaf lock
	addr   string
	kick   chan struct{} // an address change wakes a waiting loop

	connected atomic.Bool
	pauses    atomic.Int64 // waits of the connect loop begun (tests wait on it)

	// mu guards nc, started and closed; a leaf lock.
	mu      sync.Mutex
	nc      net.Conn
	started bool
	closed  bool
	stop    chan struct{}
	ctx     context.Context // cancelled by Close: stops a connect in progress
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// The loop goroutine's own: the receive buffer (a Java master's frames are at most
	// 4 MiB with the header) and the report being written.
	fr  *frameReader
	rep [ReportSize]byte
	// pending holds the start of a record a frame cut off, stored from pendingAt; it
	// goes to the store when the record is whole (see take).
	pending   []byte
	pendingAt int64
	fileSize  int64
}

// NewSlave returns a slave appending to st; Start runs it.
func NewSlave(st *store.Store, cfg Config) *Slave {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	return &Slave{
		st: st, cfg: cfg, log: cfg.Log, retry: reconnectDelay, dial: dialTCP,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), ctx: ctx, cancel: cancel,
		fr: newFrameReader(HeaderSize + MaxFrameBody), fileSize: st.CommitLogFileSize(),
	}
}

// dialTCP is Java's connect: 5 s timeout, TCP_NODELAY (Go's default).
func dialTCP(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: connectTimeout}
	return d.DialContext(ctx, "tcp", addr)
}

// SetMasterAddr sets the master's HA address ("" = none). As in Java, a connection that
// is up stays up: the new address is used at the next (re)connect. A slave that is not
// connected tries at once (the broker calls this after each registration, so a master
// that came back is found then rather than at the next 5 s retry).
func (s *Slave) SetMasterAddr(addr string) {
	s.addrMu.Lock()
	changed := s.addr != addr
	s.addr = addr
	s.addrMu.Unlock()
	if changed {
		s.log.Info().Str("master", addr).Msg("ha: master address set")
	}
	if changed || !s.connected.Load() {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// MasterAddr is the master's HA address, "" when none is set.
func (s *Slave) MasterAddr() string {
	s.addrMu.Lock()
	defer s.addrMu.Unlock()
	return s.addr
}

// Connected reports whether a connection to the master is up.
func (s *Slave) Connected() bool { return s.connected.Load() }

// Start runs the slave until Close.
func (s *Slave) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.closed {
		return
	}
	s.started = true
	s.wg.Add(1)
	go s.run()
}

// Close closes the connection and waits for the slave to stop.
func (s *Slave) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	nc := s.nc
	s.mu.Unlock()
	close(s.stop)
	s.cancel()
	if nc != nil {
		_ = nc.Close()
	}
	s.wg.Wait()
	return nil
}

func (s *Slave) stopping() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}

// pause waits d, or less when the address changes; false when the slave closes.
func (s *Slave) pause(d time.Duration) bool {
	s.pauses.Add(1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.stop:
		return false
	case <-s.kick:
	case <-t.C:
	}
	return true
}

// run is the connect loop (Java: HAClient#run): reconnect at once after a session
// ends, every 5 s while there is no address or the connect fails.
func (s *Slave) run() {
	defer s.wg.Done()
	var wait time.Duration
	for {
		if wait > 0 && !s.pause(wait) {
			return
		}
		wait = s.retry
		if s.stopping() {
			return
		}
		addr := s.MasterAddr()
		if addr == "" {
			continue
		}
		nc, err := s.dial(s.ctx, addr)
		if err != nil {
			if s.stopping() {
				return
			}
			s.log.Warn().Err(err).Str("master", addr).Dur("retryIn", s.retry).Msg("ha: connect to master failed")
			continue
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = nc.Close()
			return
		}
		s.nc = nc
		s.mu.Unlock()
		select { // an address change before this connect is used by it
		case <-s.kick:
		default:
		}
		s.connected.Store(true)
		s.log.Info().Str("master", addr).Int64("offset", s.st.MaxPhyOffset()).Msg("ha: connected to master")
		began := time.Now()
		appended, err := s.session(nc)
		s.connected.Store(false)
		s.mu.Lock()
		s.nc = nil
		s.mu.Unlock()
		_ = nc.Close()
		if s.stopping() {
			return
		}
		if errors.Is(err, io.EOF) {
			s.log.Info().Err(err).Str("master", addr).Msg("ha: master closed the connection")
		} else {
			s.log.Warn().Err(err).Str("master", addr).Msg("ha: closing master connection")
		}
		wait = 0
		if !appended && time.Since(began) < quickFailWindow {
			wait = min(s.retry, quickFailWindow)
		}
	}
}

// session serves one connection until it fails; appended is whether any data came.
// It reports the local CommitLog end at once (Java waits up to 5 s), after each read
// that appended data, and at least every HeartbeatInterval. It closes after
// HousekeepingInterval without a successful report (Java 4.6+) or without reading
// anything (Java 5.x; a master heartbeats every 5 s once it has our report).
func (s *Slave) session(nc net.Conn) (appended bool, err error) {
	fr, st := s.fr, s.st
	hb, hk := s.cfg.HeartbeatInterval, s.cfg.HousekeepingInterval
	fr.reset()
	s.pending = s.pending[:0] // a new connection starts again at the CommitLog end
	lastWrite, lastRead := time.Now(), time.Now()
	reported := st.MaxPhyOffset()
	if err := s.report(nc, reported, lastWrite); err != nil {
		return false, err
	}
	lastWrite = time.Now()
	for {
		deadline := lastWrite.Add(hb)
		if r := lastRead.Add(hk); r.Before(deadline) {
			deadline = r
		}
		_ = nc.SetReadDeadline(deadline)
		n, rerr := nc.Read(fr.space())
		if n > 0 {
			lastRead = time.Now()
			fr.filled(n)
			got, err := s.appendFrames(fr)
			appended = appended || got
			if err != nil {
				return appended, err
			}
			fr.compact()
			if m := st.MaxPhyOffset(); m != reported {
				if err := s.report(nc, m, lastWrite); err != nil {
					return appended, err
				}
				reported, lastWrite = m, time.Now()
			}
		}
		if rerr == nil {
			continue
		}
		if !errors.Is(rerr, os.ErrDeadlineExceeded) {
			if fr.buffered() > 0 && errors.Is(rerr, io.EOF) {
				return appended, fmt.Errorf("ha: master closed the connection in the middle of a frame (%d bytes buffered)", fr.buffered())
			}
			return appended, rerr
		}
		now := time.Now()
		if now.Sub(lastRead) >= hk {
			return appended, fmt.Errorf("ha: nothing read from the master for %v (housekeeping)", hk)
		}
		if now.Sub(lastWrite) >= hb {
			if err := s.report(nc, reported, lastWrite); err != nil {
				return appended, err
			}
			lastWrite = time.Now()
		}
	}
}

// appendFrames takes every whole frame buffered (Java: HAClient#dispatchReadRequest).
func (s *Slave) appendFrames(fr *frameReader) (appended bool, err error) {
	for {
		off, _, ok, err := fr.header()
		if err != nil {
			return appended, err
		}
		if !ok {
			return appended, nil
		}
		// Checked as soon as the header is in, as Java does. An empty slave takes any
		// start (the store then requires a file boundary).
		if want, empty := s.expected(); !empty && off != want {
			return appended, fmt.Errorf("ha: master pushed offset not equal the max phy offset in slave, SLAVE: %d MASTER: %d", want, off)
		}
		off, body, ok, _ := fr.next()
		if !ok {
			return appended, nil
		}
		if err := s.take(off, body); err != nil {
			return appended, err
		}
		appended = appended || len(body) > 0
	}
}

// expected is the offset the next frame must start at: the CommitLog end plus the
// bytes held back; empty when nothing is stored or held (any start is taken).
func (s *Slave) expected() (offset int64, empty bool) {
	if len(s.pending) > 0 {
		return s.pendingAt + int64(len(s.pending)), false
	}
	m := s.st.MaxPhyOffset()
	return m, m == 0
}

// take appends a frame's body, whole records only: the records it completes go to the
// store, straight from the receive buffer when the frame holds them entirely; the start
// of a record the frame cuts off is held back until the rest comes. So the slave's
// CommitLog never ends inside a record that later frames would complete, and a crash
// cannot leave one that recovery might take for whole (its CRC covers only the body).
// Reports, which are the CommitLog end, only ever name record boundaries. Java appends
// the raw bytes.
func (s *Slave) take(off int64, body []byte) error {
	for len(body) > 0 {
		if len(s.pending) == 0 {
			n, err := s.wholeRecords(off, body)
			if err != nil {
				return err
			}
			if n > 0 {
				if err := s.st.AppendToCommitLog(off, body[:n]); err != nil {
					return fmt.Errorf("ha: append %d bytes at %d: %w", n, off, err)
				}
				if s.appended != nil {
					s.appended()
				}
				off, body = off+int64(n), body[n:]
			}
			if len(body) > 0 {
				s.pendingAt = off
				s.pending = append(s.pending[:0], body...)
			}
			return nil
		}
		// Complete the held record: its header first, then the rest.
		if len(s.pending) < 8 {
			k := min(8-len(s.pending), len(body))
			s.pending = append(s.pending, body[:k]...)
			off, body = off+int64(k), body[k:]
			if len(s.pending) < 8 {
				return nil
			}
		}
		size, err := s.recordSize(s.pendingAt, s.pending)
		if err != nil {
			return err
		}
		k := min(size-len(s.pending), len(body))
		s.pending = append(s.pending, body[:k]...)
		off, body = off+int64(k), body[k:]
		if len(s.pending) < size {
			return nil
		}
		if err := s.st.AppendToCommitLog(s.pendingAt, s.pending); err != nil {
			return fmt.Errorf("ha: append %d bytes at %d: %w", len(s.pending), s.pendingAt, err)
		}
		if s.appended != nil {
			s.appended()
		}
		s.pending = s.pending[:0]
	}
	return nil
}

// wholeRecords is the length of the longest prefix of b (stored from offset at, a
// record boundary) made of whole records.
func (s *Slave) wholeRecords(at int64, b []byte) (int, error) {
	n := 0
	for len(b)-n >= 8 {
		size, err := s.recordSize(at+int64(n), b[n:])
		if err != nil {
			return n, err
		}
		if size > len(b)-n {
			break
		}
		n += size
	}
	return n, nil
}

// recordSize is the length of the record at b (offset at): TOTALSIZE of a message, or
// of the end-of-file blank, which covers the rest of the file. Anything else, or a size
// outside the file, is not a CommitLog the slave can keep.
func (s *Slave) recordSize(at int64, b []byte) (int, error) {
	size, magic, _ := message.PeekHeader(b)
	left := s.fileSize - at%s.fileSize
	switch magic {
	case message.MagicMessage, message.MagicMessageV2, message.MagicBlank:
		if size >= 8 && int64(size) <= left {
			return int(size), nil
		}
	}
	return 0, fmt.Errorf("ha: master sent no valid record at %d (size %d, magic %#x, %d bytes left in the file)", at, size, magic, left)
}

// report writes one 8-byte report. It fails when it cannot be written within
// HousekeepingInterval of the last successful one.
func (s *Slave) report(nc net.Conn, offset int64, lastWrite time.Time) error {
	binary.BigEndian.PutUint64(s.rep[:], uint64(offset))
	_ = nc.SetWriteDeadline(lastWrite.Add(s.cfg.HousekeepingInterval))
	if _, err := nc.Write(s.rep[:]); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("ha: no successful report for %v (housekeeping): %w", s.cfg.HousekeepingInterval, err)
		}
		return fmt.Errorf("ha: report: %w", err)
	}
	return nil
}
