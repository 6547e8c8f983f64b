# Toolkit folders for the GPU pipelines.
#
# The folder lazy-to-rocdl hands gpu-module-to-binary as its ROCm "toolkit":
#   llvm/bin/ld.lld        LLVM's linker, which turns the object into HSACO;
#   amdgcn/bitcode/*.bc    the ROCm device libraries (ocml, ockl, ...) that
#                          math functions link against, from Debian's
#                          rocm-device-libs.
# Debian's device libraries predate some chips (gfx942, gfx1100): their
# oclc_isa_version_*.bc, which only define the ISA version constant, are
# generated here with llvm-as.
set(LAZY_ROCM_TOOLKIT_DIR "${CMAKE_BINARY_DIR}/rocm-toolkit")
find_path(LAZY_ROCM_BITCODE_DIR ocml.bc
  PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode /usr/lib/amdgcn/bitcode
        /opt/rocm/amdgcn/bitcode
  NO_DEFAULT_PATH)
find_program(LAZY_LD_LLD ld.lld PATHS "${LLVM_TOOLS_BINARY_DIR}" NO_DEFAULT_PATH)
find_program(LAZY_LLVM_AS llvm-as PATHS "${LLVM_TOOLS_BINARY_DIR}" NO_DEFAULT_PATH)

file(MAKE_DIRECTORY "${LAZY_ROCM_TOOLKIT_DIR}/llvm/bin"
                    "${LAZY_ROCM_TOOLKIT_DIR}/amdgcn/bitcode")
if(LAZY_LD_LLD)
  file(CREATE_LINK "${LAZY_LD_LLD}" "${LAZY_ROCM_TOOLKIT_DIR}/llvm/bin/ld.lld"
       SYMBOLIC)
else()
  message(WARNING "ld.lld (lld-22) not found: lazy-to-rocdl cannot make HSACO")
endif()
if(LAZY_ROCM_BITCODE_DIR)
  file(GLOB bitcode "${LAZY_ROCM_BITCODE_DIR}/*.bc")
  foreach(lib ${bitcode})
    get_filename_component(name "${lib}" NAME)
    file(CREATE_LINK "${lib}" "${LAZY_ROCM_TOOLKIT_DIR}/amdgcn/bitcode/${name}"
         SYMBOLIC)
  endforeach()
  # chip suffix -> ISA version (major * 1000 + minor * 100 + stepping)
  set(missing_isas "940=9400" "941=9401" "942=9402" "1100=11000" "1101=11001"
                   "1102=11002")
  foreach(entry ${missing_isas})
    string(REPLACE "=" ";" pair "${entry}")
    list(GET pair 0 isa)
    list(GET pair 1 version)
    set(out "${LAZY_ROCM_TOOLKIT_DIR}/amdgcn/bitcode/oclc_isa_version_${isa}.bc")
    if(NOT EXISTS "${out}" AND LAZY_LLVM_AS)
      set(ll "${CMAKE_BINARY_DIR}/rocm-toolkit/oclc_isa_version_${isa}.ll")
      file(WRITE "${ll}" "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 ${version}, align 4\n")
      execute_process(COMMAND "${LAZY_LLVM_AS}" "${ll}" -o "${out}"
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(WARNING "llvm-as failed on ${ll}")
      endif()
    endif()
  endforeach()
else()
  message(WARNING "ROCm device libraries (rocm-device-libs) not found: "
                  "lazy-to-rocdl cannot link math functions")
endif()

# The CUDA toolkit lazy-to-nvvm hands gpu-module-to-binary: libdevice (the
# math functions) and ptxas. Passing it explicitly keeps the result
# independent of CUDA_HOME; without it, math calls would stay unresolved.
find_path(LAZY_CUDA_TOOLKIT_DIR nvvm/libdevice/libdevice.10.bc
  PATHS $ENV{CUDA_HOME} $ENV{CUDA_ROOT} $ENV{CUDA_PATH} /usr/local/cuda
        /usr/lib/cuda /usr/lib/nvidia-cuda-toolkit
  NO_DEFAULT_PATH)
if(NOT LAZY_CUDA_TOOLKIT_DIR)
  set(LAZY_CUDA_TOOLKIT_DIR "")
  message(WARNING "CUDA libdevice not found: lazy-to-nvvm needs toolkit= for "
                  "kernels that use math functions")
endif()
