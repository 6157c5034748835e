// Package protocol is the RocketMQ 4.x wire vocabulary, declared once: request and
// response codes, LanguageCode, MQVersion numbering, the RemotingCommand (Command),
// every CommandCustomHeader with its wire keys, the JSON bodies that clients parse,
// and protocol.Error, the value handlers return to produce an error response.
//
// Codes and headers are generated from the tables in spec/ (go generate ./protocol);
// handlers never touch extFields by string literal.
//
// The package is pure: no goroutines, no logging, no sockets.
package protocol

//go:generate go run ./internal/gen -spec spec -out .
