package protocol

import (
	"testing"
	"unsafe"
)

func TestCommand_Clone_Independent(t *testing.T) {
	buf := []byte("topicTvaluebody!remark")
	c := NewRequest(CodeSendMessage)
	c.Remark, c.HasRemark = unsafeView(buf[16:22]), true
	c.Ext.Set(unsafeView(buf[0:5]), unsafeView(buf[5:11]))
	c.Body = buf[11:16]
	cl := c.Clone()
	for i := range buf {
		buf[i] = 'x'
	}
	if cl.Remark != "remark" || cl.Ext.Value("topic") != "Tvalue" || string(cl.Body) != "body!" || cl.Code != int32(CodeSendMessage) {
		t.Fatalf("clone shares memory with the original: %+v", cl)
	}
}

func unsafeView(b []byte) string { return unsafe.String(&b[0], len(b)) }
