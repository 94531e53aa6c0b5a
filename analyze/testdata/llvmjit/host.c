/*
 * TestLLVMJIT's host: compiles jitcode.ll (argv[2]) with LLVM 14 and
 * calls jit_entry(NULL, 7), which crashes inside the generated code.
 * argv[1] picks the JIT, both of which register the relocatable (ET_REL)
 * object of each compiled module with the GDB JIT interface:
 *   mcjit  MCJIT through the C API (it registers by itself);
 *   orc    ORC's LLJIT over RuntimeDyld with the GDB registration
 *          listener, as PostgreSQL's JIT does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Core.h>
#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/OrcEE.h>
#include <llvm-c/Target.h>

typedef int (*entry_fn)(volatile int *, int);

static const char *ir_path;

static LLVMModuleRef parse(LLVMContextRef ctx) {
	char *err = NULL;
	LLVMMemoryBufferRef buf;
	LLVMModuleRef mod;
	if (LLVMCreateMemoryBufferWithContentsOfFile(ir_path, &buf, &err) ||
	    LLVMParseIRInContext(ctx, buf, &mod, &err)) {
		fprintf(stderr, "%s: %s\n", ir_path, err);
		exit(2);
	}
	return mod;
}

static entry_fn mcjit(void) {
	char *err = NULL;
	struct LLVMMCJITCompilerOptions opts;
	LLVMExecutionEngineRef ee;
	LLVMModuleRef mod = parse(LLVMContextCreate());
	LLVMLinkInMCJIT();
	LLVMSetTarget(mod, LLVMGetDefaultTargetTriple());
	LLVMInitializeMCJITCompilerOptions(&opts, sizeof opts);
	opts.OptLevel = 1;
	if (LLVMCreateMCJITCompilerForModule(&ee, mod, &opts, sizeof opts, &err)) {
		fprintf(stderr, "mcjit: %s\n", err);
		exit(3);
	}
	return (entry_fn)LLVMGetFunctionAddress(ee, "jit_entry");
}

static LLVMOrcObjectLayerRef rtdyld_with_gdb(void *ctx, LLVMOrcExecutionSessionRef es, const char *triple) {
	LLVMOrcObjectLayerRef l = LLVMOrcCreateRTDyldObjectLinkingLayerWithSectionMemoryManager(es);
	LLVMOrcRTDyldObjectLinkingLayerRegisterJITEventListener(l, LLVMCreateGDBRegistrationListener());
	return l;
}

static void check(LLVMErrorRef e) {
	if (e) {
		fprintf(stderr, "orc: %s\n", LLVMGetErrorMessage(e));
		exit(3);
	}
}

static entry_fn orc(void) {
	LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
	LLVMOrcLLJITRef jit;
	LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
	LLVMModuleRef mod = parse(LLVMOrcThreadSafeContextGetContext(tsc));
	LLVMOrcJITTargetAddress addr;
	LLVMOrcLLJITBuilderSetObjectLinkingLayerCreator(b, rtdyld_with_gdb, NULL);
	check(LLVMOrcCreateLLJIT(&jit, b));
	LLVMSetTarget(mod, LLVMOrcLLJITGetTripleString(jit));
	LLVMSetDataLayout(mod, LLVMOrcLLJITGetDataLayoutStr(jit));
	check(LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), LLVMOrcCreateNewThreadSafeModule(mod, tsc)));
	check(LLVMOrcLLJITLookup(jit, &addr, "jit_entry"));
	return (entry_fn)addr;
}

__attribute__((noinline)) int run(entry_fn entry) {
	int r = entry(NULL, 7);
	return r + 1;
}

int main(int argc, char **argv) {
	entry_fn entry;
	if (argc != 3) {
		fprintf(stderr, "usage: %s mcjit|orc jitcode.ll\n", argv[0]);
		return 1;
	}
	ir_path = argv[2];
	LLVMInitializeNativeTarget();
	LLVMInitializeNativeAsmPrinter();
	entry = strcmp(argv[1], "orc") == 0 ? orc() : mcjit();
	if (!entry)
		return 4;
	return run(entry);
}
