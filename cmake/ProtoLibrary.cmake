# reco_proto_library(NAME PROTOS a.proto b.proto ...)
#
# The one code-generation rule of the project: runs protoc with the gRPC plugin on
# the given .proto files (relative to proto/) and builds a static library NAME from
# the generated code. Dependents include generated headers as "proto/a.pb.h".
function(reco_proto_library name)
  cmake_parse_arguments(ARG "" "" "PROTOS;DEPS" ${ARGN})
  set(out_dir ${CMAKE_BINARY_DIR}/gen)
  set(srcs)
  foreach(proto ${ARG_PROTOS})
    get_filename_component(stem ${proto} NAME_WE)
    set(gen ${out_dir}/proto/${stem}.pb.cc ${out_dir}/proto/${stem}.pb.h
            ${out_dir}/proto/${stem}.grpc.pb.cc ${out_dir}/proto/${stem}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${gen}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir}
      COMMAND protobuf::protoc
        --proto_path=${CMAKE_SOURCE_DIR}
        --cpp_out=${out_dir}
        --grpc_out=${out_dir}
        --plugin=protoc-gen-grpc=$<TARGET_FILE:gRPC::grpc_cpp_plugin>
        ${CMAKE_SOURCE_DIR}/proto/${proto}
      DEPENDS ${CMAKE_SOURCE_DIR}/proto/${proto} protobuf::protoc gRPC::grpc_cpp_plugin
      COMMENT "protoc ${proto}"
      VERBATIM)
    list(APPEND srcs ${out_dir}/proto/${stem}.pb.cc ${out_dir}/proto/${stem}.grpc.pb.cc)
  endforeach()
  add_library(${name} STATIC ${srcs})
  target_include_directories(${name} PUBLIC ${out_dir})
  target_link_libraries(${name} PUBLIC protobuf::libprotobuf gRPC::grpc++ ${ARG_DEPS})
  # Generated code is not ours to warn about.
  target_compile_options(${name} PRIVATE -w)
endfunction()
