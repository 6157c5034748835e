// Package compat holds the Java-isms Skyrocket must reproduce byte for byte:
// String.hashCode over UTF-16 code units, fastjson's JSON dialect (unquoted numeric
// keys, object-keyed maps, omitted nulls), java.util.Properties parsing and printing,
// Java's time formats, and MixAll.string2File's atomic config-file writes.
//
// It is a leaf: it imports nothing from this module.
package compat
