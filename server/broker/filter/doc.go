// Package filter is RocketMQ's SQL92 message selector language (Java: the rocketmq-filter
// module of 4.9.8 — SqlFilter, the JavaCC grammar SelectorParser.jj and the expression
// classes), used by brokers with enablePropertyFilter=true to deliver a consumer only
// the messages whose properties match its selector. It is pure: no I/O, no logging, no
// goroutines; a compiled *Expression is immutable and safe for concurrent use.
//
// # Language
//
//	selector   := or
//	or         := and (OR and)*
//	and        := equality (AND equality)*
//	equality   := comparison ( ("=" | "<>") comparison | IS [NOT] NULL )*
//	comparison := unary ( (">" | ">=" | "<" | "<=") unary
//	                    | [NOT] BETWEEN unary AND unary
//	                    | [NOT] IN "(" 'string' ("," 'string')* ")" )*
//	unary      := "+" unary | "-" unary | NOT unary | literal | property | "(" or ")"
//	literal    := 'string' | integer | float | TRUE | FALSE | NULL
//
// Keywords are case-insensitive; properties are [A-Za-z_$][A-Za-z0-9_$]* and
// case-sensitive (TAGS, KEYS and the other system properties are properties too).
// Strings are single-quoted with ” for a quote. Integers are decimal ("0" or no leading
// zero), with an optional L, as Integer when they fit else Long; floats are 1.5, 1., .5,
// 1e3 (Double). There is no hex or octal, no LIKE, no arithmetic, and 4.9.8 has no
// CONTAINS / STARTSWITH / ENDSWITH. Comments are "-- ...<newline>" and "/* ... */".
//
// # Java's behaviour, kept on purpose
//
// The goal is that a selector compiles here exactly when it compiles on a Java broker,
// with the same error text, and selects the same messages. testdata/golden.jsonl holds
// Java's answers (compile result or error text, toString of the compiled tree, result
// over 26 property sets) for 3264 selectors; TestGolden_Java checks all of them. Among
// the quirks that follow:
//
//   - Text after a complete expression is ignored ("a = 1 b" is "a = 1"; "a = 007" is
//     "a = 0" followed by ignored tokens), but the token right after it is lexed, so a
//     stray character there is an error.
//   - Literal checks at compile time: NULL cannot be compared with = or <>, only numbers
//     with > >= < <=, BETWEEN bounds must be non-NULL and in order, IN needs a property
//     on its left, a float literal must be ≥ Double.MIN_VALUE (so 0.0 is refused), an
//     integer literal must fit a Long (so -9223372036854775808 is refused).
//   - A bare property used as a condition ("a AND b") is never TRUE: it is FALSE when
//     present (a String is not a Boolean) and NULL when missing.
//   - Comparisons convert a String property into the literal's type with Java's
//     Integer/Long/Double/Boolean.valueOf: a = 5 matches '5' and '+5' but a property
//     '5.5' compared with the integer 5 makes the whole evaluation fail (no match), even
//     inside an OR whose other side is TRUE, if it is evaluated first.
//   - Two properties compared with > etc. are both parsed as doubles; a = b with both
//     missing is TRUE.
//   - Error texts are Java's exception toString: "org.apache.rocketmq.filter.parser.
//     ParseException: Encountered ... Was expecting one of: ...", "...TokenMgrError:
//     Lexical error at line 1, column 8. ...", "java.lang.RuntimeException: ...".
//
// The parser replays JavaCC's choices, its syntactic lookaheads and its bookkeeping for
// the expected-token list, so those texts match too; see parser.go. Double#toString
// (in toString and errors) is the shortest form, as Java 19+, where Java 17 prints a
// longer one for a few values.
//
// # Limits, where Java has none
//
// Java's parser and evaluator recurse per nesting level until the thread stack runs out
// (java.lang.StackOverflowError, which fails the compile); a goroutine's stack grows to
// 1 GiB and then the whole process dies. So a selector is refused (ErrTooComplex, with a
// text of ours) when it is longer than MaxLength (64 KiB), nests parentheses and NOT, -,
// + deeper than MaxNesting (256), or compiles to a tree deeper than MaxTreeDepth (512,
// reached only by chaining =, <> or IS NULL that often). Chains of AND and OR are kept
// flat, so their length costs no stack; JavaCC's unbounded "+" lookahead reuses what it
// scanned, so "+(+(+(...)))" costs linear time. Compiling a 64 KiB selector takes tens
// of milliseconds at worst and under 512 KiB of stack; see limits.go.
package filter
