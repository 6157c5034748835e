package configs

import (
	"encoding"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/skyrocket-mq/skyrocket/compat"
)

// ErrInvalidValue is returned by Apply (and Load, Update) for a property whose value does
// not parse as its field's type: an int or long out of range or not a number, an unknown
// enum name. Java's MixAll.properties2Object swallows such errors and keeps the default;
// here every other property is still applied and the error lists the rejected ones, so
// cmd/ can warn or refuse to start.
var ErrInvalidValue = errors.New("configs: invalid property value")

// ErrBadTarget is returned when a target is not a non-nil pointer to a struct.
var ErrBadTarget = errors.New("configs: target must be a non-nil pointer to a struct")

// LoadProperties reads a Java properties file (java.util.Properties#load semantics, see
// compat.ParseProperties) into a map; a later duplicate key wins.
func LoadProperties(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("configs: load %s: %w", path, err)
	}
	kvs, err := compat.ParseProperties(b)
	if err != nil {
		return nil, fmt.Errorf("configs: load %s: %w", path, err)
	}
	return compat.PropertiesMap(kvs), nil
}

// Apply sets the fields of each target (pointers to config structs) from props by Java
// property name, as MixAll.properties2Object does for each object in turn: a key that
// names a field of several targets sets all of them. Values are trimmed (Java does not
// trim, so "8 " fails its Integer.parseInt and is silently ignored; here it reads as 8);
// ints and longs parse as Java's Integer/Long.parseInt (decimal, optional sign); a
// boolean is true exactly when the value is "true" in any case (Java's
// Boolean.parseBoolean: "yes" is false, never an error); enums take the Java names.
//
// unknown lists, sorted, the keys no target has (Java ignores them; cmd/ warns).
// err wraps ErrInvalidValue when some values did not parse; all others are applied.
func Apply(props map[string]string, targets ...any) (unknown []string, err error) {
	type slot struct {
		v reflect.Value
		f *fieldInfo
	}
	byKey := map[string][]slot{}
	for _, t := range targets {
		v, fields, err := structOf(t)
		if err != nil {
			return nil, err
		}
		for i := range fields {
			f := &fields[i]
			byKey[f.key] = append(byKey[f.key], slot{v.Field(f.index), f})
		}
	}
	var errs []error
	for key, raw := range props {
		slots, ok := byKey[key]
		if !ok {
			unknown = append(unknown, key)
			continue
		}
		value := strings.TrimSpace(raw)
		for _, s := range slots {
			if err := setField(s.v, value); err != nil {
				errs = append(errs, fmt.Errorf("%w: %s=%q: %w", ErrInvalidValue, key, raw, err))
				break
			}
		}
	}
	slices.Sort(unknown)
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return unknown, errors.Join(errs...)
}

// Properties lists target's fields as MixAll.printObjectProperties does: Java field name
// and value text, in declaration order, a null String as "". target is a config struct
// or a pointer to one; anything else gives nil.
func Properties(target any) []compat.KV {
	return properties(target, false, true)
}

// ObjectProperties lists target's fields as MixAll.object2Properties does (the source of
// GET_BROKER_CONFIG and of the persisted broker.properties): like Properties, but a null
// String (an empty nullable field) is left out.
func ObjectProperties(target any) []compat.KV {
	return properties(target, false, false)
}

// Print writes "name=value\n" for every field of every target, in order: the text of
// `mqbroker -p` / `mqnamesrv -p` (Java logs each line through logback, which prefixes a
// timestamp, level and thread; the prefix is cmd/'s business).
func Print(w io.Writer, targets ...any) error {
	return printFields(w, false, targets)
}

// PrintImportant is Print restricted to Java's @ImportantField fields: `mqbroker -m`.
func PrintImportant(w io.Writer, targets ...any) error {
	return printFields(w, true, targets)
}

func printFields(w io.Writer, important bool, targets []any) error {
	var b []byte
	for _, t := range targets {
		for _, kv := range properties(t, important, true) {
			b = append(b, kv.Key...)
			b = append(b, '=')
			b = append(b, kv.Value...)
			b = append(b, '\n')
		}
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("configs: print: %w", err)
	}
	return nil
}

func properties(target any, important, nullAsEmpty bool) []compat.KV {
	v := reflect.ValueOf(target)
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil
	}
	fields := fieldsOf(v.Type())
	out := make([]compat.KV, 0, len(fields))
	for i := range fields {
		f := &fields[i]
		if important && !f.important {
			continue
		}
		fv := v.Field(f.index)
		if f.nullable && fv.String() == "" && !nullAsEmpty {
			continue
		}
		out = append(out, compat.KV{Key: f.name, Value: formatField(fv)})
	}
	return out
}

// fieldInfo describes one tagged field: `prop:"key[,important][,nullable][,field=name]"`.
type fieldInfo struct {
	index     int
	key       string // property name Java's properties2Object reads (from the setter)
	name      string // Java field name, printed by -p and object2Properties
	important bool   // Java @ImportantField
	nullable  bool   // Java String defaulting to null; "" stands for null
}

var fieldCache sync.Map // reflect.Type -> []fieldInfo

func fieldsOf(t reflect.Type) []fieldInfo {
	if f, ok := fieldCache.Load(t); ok {
		return f.([]fieldInfo)
	}
	var fields []fieldInfo
	for i := range t.NumField() {
		tag, ok := t.Field(i).Tag.Lookup("prop")
		if !ok || tag == "-" {
			continue
		}
		parts := strings.Split(tag, ",")
		f := fieldInfo{index: i, key: parts[0], name: parts[0]}
		for _, p := range parts[1:] {
			switch {
			case p == "important":
				f.important = true
			case p == "nullable":
				f.nullable = true
			case strings.HasPrefix(p, "field="):
				f.name = strings.TrimPrefix(p, "field=")
			}
		}
		fields = append(fields, f)
	}
	fieldCache.Store(t, fields)
	return fields
}

func structOf(target any) (reflect.Value, []fieldInfo, error) {
	v := reflect.ValueOf(target)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}, nil, fmt.Errorf("%w: %T", ErrBadTarget, target)
	}
	v = v.Elem()
	return v, fieldsOf(v.Type()), nil
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

func setField(v reflect.Value, s string) error {
	if v.Addr().Type().Implements(textUnmarshaler) {
		return v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	}
	switch v.Kind() {
	case reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(s, 10, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
	case reflect.Bool:
		v.SetBool(strings.EqualFold(s, "true"))
	case reflect.String:
		v.SetString(s)
	default:
		return fmt.Errorf("unsupported field kind %s", v.Kind())
	}
	return nil
}

func formatField(v reflect.Value) string {
	if m, ok := v.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		if err == nil {
			return string(b)
		}
	}
	switch v.Kind() {
	case reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.String:
		return v.String()
	default:
		return fmt.Sprint(v.Interface())
	}
}
