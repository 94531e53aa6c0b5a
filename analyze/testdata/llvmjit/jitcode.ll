; The code TestLLVMJIT's host compiles at run time: jit_entry calls
; jit_mid calls jit_leaf, which stores through the NULL pointer it is
; given. No frame pointers, so only the object's .eh_frame unwinds these
; frames; debug info for the line table gdb and coreunwind read.
source_filename = "jitcode.c"

define void @jit_leaf(i32* %p, i32 %x) #0 !dbg !10 {
  store volatile i32 %x, i32* %p, !dbg !11
  ret void, !dbg !12
}

define i32 @jit_mid(i32* %p, i32 %x) #0 !dbg !20 {
  %buf = alloca [8 x i32], align 16
  %slot = getelementptr [8 x i32], [8 x i32]* %buf, i32 0, i32 3
  store volatile i32 %x, i32* %slot, !dbg !21
  %y = mul i32 %x, 3, !dbg !21
  call void @jit_leaf(i32* %p, i32 %y), !dbg !22
  %v = load volatile i32, i32* %slot, !dbg !23
  %r = add i32 %y, %v, !dbg !23
  ret i32 %r, !dbg !23
}

define i32 @jit_entry(i32* %p, i32 %x) #0 !dbg !30 {
  %r = call i32 @jit_mid(i32* %p, i32 %x), !dbg !31
  %s = mul i32 %r, 2, !dbg !32
  ret i32 %s, !dbg !32
}

attributes #0 = { noinline nounwind uwtable "frame-pointer"="none" }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "coreunwind test", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "jitcode.c", directory: "/jit")
!3 = !{i32 7, !"Dwarf Version", i32 4}
!4 = !{i32 2, !"Debug Info Version", i32 3}
!5 = !DISubroutineType(types: !6)
!6 = !{null}
!10 = distinct !DISubprogram(name: "jit_leaf", scope: !1, file: !1, line: 1, type: !5, scopeLine: 1, spFlags: DISPFlagDefinition, unit: !0)
!11 = !DILocation(line: 2, column: 3, scope: !10)
!12 = !DILocation(line: 3, column: 1, scope: !10)
!20 = distinct !DISubprogram(name: "jit_mid", scope: !1, file: !1, line: 5, type: !5, scopeLine: 5, spFlags: DISPFlagDefinition, unit: !0)
!21 = !DILocation(line: 6, column: 3, scope: !20)
!22 = !DILocation(line: 7, column: 3, scope: !20)
!23 = !DILocation(line: 8, column: 3, scope: !20)
!30 = distinct !DISubprogram(name: "jit_entry", scope: !1, file: !1, line: 10, type: !5, scopeLine: 10, spFlags: DISPFlagDefinition, unit: !0)
!31 = !DILocation(line: 11, column: 3, scope: !30)
!32 = !DILocation(line: 12, column: 3, scope: !30)
