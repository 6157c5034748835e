package protocol

import "strconv"

// LanguageCode identifies the peer's implementation (Java: LanguageCode).
type LanguageCode uint8

const (
	LanguageJava    LanguageCode = 0
	LanguageCPP     LanguageCode = 1
	LanguageDotnet  LanguageCode = 2
	LanguagePython  LanguageCode = 3
	LanguageDelphi  LanguageCode = 4
	LanguageErlang  LanguageCode = 5
	LanguageRuby    LanguageCode = 6
	LanguageOther   LanguageCode = 7
	LanguageHTTP    LanguageCode = 8
	LanguageGo      LanguageCode = 9
	LanguagePHP     LanguageCode = 10
	LanguageOMS     LanguageCode = 11 // 4.4.0+
	LanguageRust    LanguageCode = 12 // 4.9.4+
	LanguageNodeJS  LanguageCode = 13 // 5.x
	LanguageUnknown LanguageCode = 127
)

var languageNames = [...]string{"JAVA", "CPP", "DOTNET", "PYTHON", "DELPHI", "ERLANG", "RUBY", "OTHER", "HTTP", "GO", "PHP", "OMS", "RUST", "NODE_JS"}

// String returns the Java enum name, as written in JSON headers.
func (l LanguageCode) String() string {
	if int(l) < len(languageNames) {
		return languageNames[l]
	}
	return "OTHER"
}

// ParseLanguage maps a JSON header's language (enum name, or a number written by a
// lenient peer) to its code. Unknown names give LanguageUnknown, as the Go client does.
func ParseLanguage(s string) LanguageCode {
	for i, n := range languageNames {
		if n == s {
			return LanguageCode(i)
		}
	}
	if v, err := strconv.Atoi(s); err == nil && v >= 0 && v < 256 {
		return LanguageCode(v)
	}
	return LanguageUnknown
}
