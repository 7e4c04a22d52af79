// Package hostile holds the hostile-server suite, and nothing else: its
// tests build the structkit command once and run "structkit bridge",
// "structkit mcp" and "structkit call" as processes in front of servers
// that publish or answer what no well-behaved server would — thousands of
// large tool schemas, a reflection descriptor of 2000 types used by 80
// methods, results nested 100,000 levels deep or 8 MiB of tiny values,
// methods that hang, 200,000 field violations, text carrying NUL, bidi
// controls and forged problem lines, malformed stdio lines. They assert
// the answers and codes, that the session lives on, and the processes'
// peak resident memory (their rusage), and log what they measured.
//
// The memory cases are skipped under the race detector (which inflates
// memory) and with -short.
package hostile
