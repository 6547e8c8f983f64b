//===- ScheduleFlags.td - the scheduler flags, declared once -*- tablegen -*-===//
//
// Every scheduler flag, in one list. A module carries them in its
// `lazy.flags` dictionary under `key`; lazy-schedule, lazy-group and
// lazy-form-kernels take them as the pass option `option` (Passes.td builds
// its option list from these records); `defaultValue` is tinygrad 0.9.2's;
// `tinygrad` the ContextVar or environment variable it mirrors. C++ reads
// the same records as ScheduleFlags.def, which the build generates from
// this file (utils/gen_schedule_flags.py):
//
//   LAZY_BOOL_FLAG(FIELD, KEY, OPTION, DEFAULT, TINYGRAD, DESCRIPTION)
//   LAZY_POLICY_FLAG(FIELD, KEY, OPTION, DESCRIPTION): a FusionPolicy,
//     spelled "tinygrad" (the default: tinygrad 0.9.2's schedule, exactly)
//     or "aggressive"; tinygrad has no such variable.
//
//===----------------------------------------------------------------------===//

#ifndef LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_TD
#define LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_TD

class Lazy_ScheduleFlag<string fieldName, string keyName, string optionName,
                        string defaultText, string tinygradName,
                        string text> {
  string cppField = fieldName;
  string key = keyName;
  string option = optionName;
  string defaultValue = defaultText;
  string tinygrad = tinygradName;
  string description = text;
}
class Lazy_BoolFlag<string fieldName, string keyName, string optionName,
                    string defaultText, string tinygradName, string text>
    : Lazy_ScheduleFlag<fieldName, keyName, optionName, defaultText,
                        tinygradName, text>;
class Lazy_PolicyFlag<string fieldName, string keyName, string optionName,
                      string text>
    : Lazy_ScheduleFlag<fieldName, keyName, optionName, "tinygrad", "", text>;

def Lazy_MultiOutputFlag : Lazy_BoolFlag<"multiOutput", "multi_output",
    "multi-output", "true", "MULTIOUTPUT",
    "buffers that share a reduce share a kernel">;
def Lazy_FuseConvBwFlag : Lazy_BoolFlag<"fuseConvBw", "fuse_conv_bw",
    "fuse-conv-bw", "false", "FUSE_CONV_BW",
    "merge a double reduce whose inner reduce has no other child">;
def Lazy_FuseArangeFlag : Lazy_BoolFlag<"fuseArange", "fuse_arange",
    "fuse-arange", "false", "FUSE_ARANGE",
    "recompute a sum over a const inside its consumers">;
def Lazy_UseCopyKernelFlag : Lazy_BoolFlag<"useCopyKernel", "use_copy_kernel",
    "use-copy-kernel", "false", "USE_COPY_KERNEL",
    "copy between devices of one type with a byte-copy kernel">;
def Lazy_OnlineSoftmaxFlag : Lazy_BoolFlag<"onlineSoftmax", "online_softmax",
    "online-softmax", "true", "LAZY_ONLINE_SOFTMAX",
    "fusion=aggressive: one kernel and one pass for a softmax-weighted sum "
    "(attention; rule 6, lazy-online-softmax); false keeps the scores and "
    "probabilities stored (3 kernels)">;
def Lazy_FusionFlag : Lazy_PolicyFlag<"fusion", "fusion", "fusion",
    "tinygrad: tinygrad 0.9.2's kernels; aggressive: fewer kernels that move "
    "fewer bytes">;

/// The flags in the order C++ and the pass options list them.
defvar Lazy_BoolFlags = [Lazy_MultiOutputFlag, Lazy_FuseConvBwFlag,
                         Lazy_FuseArangeFlag, Lazy_UseCopyKernelFlag,
                         Lazy_OnlineSoftmaxFlag];
defvar Lazy_PolicyFlags = [Lazy_FusionFlag];

#endif // LAZY_DIALECT_LAZY_IR_SCHEDULEFLAGS_TD
