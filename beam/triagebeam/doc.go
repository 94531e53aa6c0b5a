// Package triagebeam is `coreunwind triage` as an Apache Beam pipeline
// (Go SDK): the same discovery, analysis, signatures, buckets and
// outputs, run by any Beam runner — embedded (prism, in process) on one
// machine, or a job service (Flink's, Spark's, prism's) for a fleet's
// archive.
//
//	roots ─ list files ─ reshuffle ─ analyze each file's cores ─┬─ key by signature ─ combine into collectors ─ merge ─ write summary
//	                                                            └─ (jsonl) report lines ─ group ─ write lines
//
// Every stage calls package triage: ListFiles and DiscoverFile (what
// triage's discovery does, split where the pipeline fans out), an
// Analyzer per worker process (each binary opened once per worker),
// Collector.AddRecord and Merge (order-independent, so the result does
// not depend on how the runner splits and orders the work), and the
// writers. A tar archive is one element: its members are extracted and
// analyzed by the worker that reads it, as triage reads it.
//
// It is a module of its own (../go.mod, with a replace to the main
// module), so that the Beam SDK stays out of the main module and its
// binary.
package triagebeam
