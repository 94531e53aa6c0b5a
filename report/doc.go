// Package report holds what coreunwind tells about a core — the Report
// model — and writes it: text for people (gdb's and eu-stack's
// conventions), JSON for scripts (schema coreunwind.report/v1, documented
// in report-json.md beside this file). It knows nothing about file
// formats or unwinding.
package report
