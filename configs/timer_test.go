package configs

import (
	"errors"
	"testing"
)

func TestTimerFrom_DefaultsKeysAndBadValues(t *testing.T) {
	d, err := TimerFrom(nil)
	if err != nil || d != DefaultTimer() || !d.Enable || d.PrecisionMs != 1000 || d.MaxDelaySec != 259200 {
		t.Fatalf("defaults %+v %v, want 5.x's", d, err)
	}
	got, err := TimerFrom(map[string]string{"timerEnable": "false", "timerPrecisionMs": "100", "timerMaxDelaySec": "60"})
	if err != nil || got.Enable || got.PrecisionMs != 100 || got.MaxDelaySec != 60 {
		t.Fatalf("got %+v %v", got, err)
	}
	if got, _ := TimerFrom(map[string]string{"timerWheelEnable": "false"}); got.Enable {
		t.Fatal("timerWheelEnable=false must turn the timer off")
	}
	for _, bad := range []map[string]string{{"timerEnable": "maybe"}, {"timerPrecisionMs": "-1"}, {"timerMaxDelaySec": "x"}, {"mappedFileSizeTimerLog": "0"}} {
		if _, err := TimerFrom(bad); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%v: err %v, want ErrInvalidValue", bad, err)
		}
	}
	b := NewBroker()
	unknown, err := b.Load(map[string]string{"timerPrecisionMs": "200", "noSuchKey": "1"})
	if err != nil || len(unknown) != 1 || unknown[0] != "noSuchKey" {
		t.Fatalf("unknown %v %v: the timer keys are known", unknown, err)
	}
}
