package corefile

// KernelLinkMapCore gives the external tests (which may import analyze)
// the kernel core of the link-map fixture and its copy without NT_FILE.
var KernelLinkMapCore = kernelLinkMapCore
