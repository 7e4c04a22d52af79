// Package oracle holds the tests of the library that take a provider's or
// an SDK's own code as the oracle (google.golang.org/genai's Schema), so
// that the library's module does not require those modules: a program
// that imports only structconv and coerce does not get them.
package oracle
