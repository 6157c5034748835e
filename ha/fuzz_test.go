package ha

import (
	"encoding/binary"
	"testing"
)

// FuzzFrameReader: any byte stream, cut into reads at any positions, yields the same
// frames (or the same error) as when read in one piece, and never panics.
func FuzzFrameReader(f *testing.F) {
	two := appendFrame(appendFrame(nil, 0, []byte("hello")), 5, nil)
	f.Add(two, []byte{3, 1, 7})                                              // two frames, split inside both
	f.Add(appendFrame(nil, 1<<40, make([]byte, 300)), []byte{12, 0, 200})    // a body longer than one read
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF}, []byte{1}) // size -1
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x40, 0x00, 0x00}, []byte{5}) // size 4 MiB: too big
	f.Add([]byte("HTTP/1.1 400 Bad Request\r\n\r\n"), []byte{2, 9})          // garbage
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		type frame struct {
			off  int64
			body string
		}
		read := func(pieces [][]byte) ([]frame, bool) {
			fr := newFrameReader(HeaderSize + 512)
			var out []frame
			for _, p := range pieces {
				for len(p) > 0 {
					if len(fr.space()) == 0 {
						return out, true // a frame bigger than this small buffer: stop here
					}
					n := copy(fr.space(), p)
					fr.filled(n)
					p = p[n:]
					for {
						off, body, ok, err := fr.next()
						if err != nil {
							return out, true
						}
						if !ok {
							break
						}
						out = append(out, frame{off, string(body)})
					}
					fr.compact()
				}
			}
			return out, false
		}
		whole, wholeErr := read([][]byte{data})
		var pieces [][]byte
		rest := data
		for _, c := range cuts {
			n := min(int(c), len(rest))
			pieces = append(pieces, rest[:n])
			rest = rest[n:]
		}
		pieces = append(pieces, rest)
		split, splitErr := read(pieces)
		if wholeErr != splitErr || len(whole) != len(split) {
			t.Fatalf("whole: %d frames (stopped %v), split: %d (stopped %v)", len(whole), wholeErr, len(split), splitErr)
		}
		for i := range whole {
			if whole[i] != split[i] {
				t.Fatalf("frame %d: %v vs %v", i, whole[i], split[i])
			}
		}
	})
}

// FuzzReportReader: the newest whole report of each read is the last complete 8-byte
// word of the stream so far, whatever the reads' sizes.
func FuzzReportReader(f *testing.F) {
	f.Add(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, 7), 9), []byte{3, 8})
	f.Add([]byte{1, 2, 3}, []byte{1, 1})
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		var rr reportReader
		stream := data
		seen := 0
		for i := 0; len(data) > 0; i++ {
			n := len(data)
			if i < len(cuts) {
				n = min(int(cuts[i])+1, len(data))
			}
			n = min(n, len(rr.space()))
			copy(rr.space(), data[:n])
			data = data[n:]
			v, ok := rr.filled(n)
			prev := seen
			seen += n
			if ok != (seen/8 > prev/8) {
				t.Fatalf("after %d bytes: ok %v", seen, ok)
			}
			if rr.partial() != seen%8 {
				t.Fatalf("after %d bytes: %d partial", seen, rr.partial())
			}
			if w := seen / 8 * 8; ok && v != int64(binary.BigEndian.Uint64(stream[w-8:])) {
				t.Fatalf("after %d bytes: report %d, want the word at %d", seen, v, w-8)
			}
		}
	})
}
