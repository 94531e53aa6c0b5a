package ia64

// The internal tests' helpers, for the external tests in analyze_test.go.
var (
	RunProgram       = runProgram
	RunToCore        = runToCore
	RunDynToCore     = runDynToCore
	JITInfoBlock     = jitInfoBlock
	DynwalkProcs     = dynwalkProcs
	DropTableEntries = dropTableEntries
)

// JITBase is where dynwalk.s's generated code is linked.
const JITBase = jitBase

// DynRun is an interpreted run of dynwalk.s (dynamic_walk_test.go).
type DynRun = dynRun
