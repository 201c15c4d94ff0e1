# ordo_vendor_builds(<vendor> <out-var>): the vendor folders with a
# CMakeLists.txt whose build products the adapter vendors/<vendor>/adapter.json
# names ({build}/vendors/<folder>/...: its env and launch settings), sorted.
# The mpich adapter names vendors/mpich (the yield-when-idle preload); the
# mutants adapter names vendors/mutants and vendors/mpich; reference-mpich
# names vendors/mpich; an adapter that names none builds none.
function(ordo_vendor_builds vendor out)
  file(READ ${PROJECT_SOURCE_DIR}/vendors/${vendor}/adapter.json adapter)
  # (a change of the adapter, or a vendor folder's CMakeLists.txt made or
  # removed, configures the build again)
  set_property(DIRECTORY ${PROJECT_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${PROJECT_SOURCE_DIR}/vendors/${vendor}/adapter.json)
  file(GLOB lists CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/vendors ${PROJECT_SOURCE_DIR}/vendors/*/CMakeLists.txt)
  set(dirs "")
  foreach(list IN LISTS lists)
    get_filename_component(dir ${list} DIRECTORY)
    string(FIND "${adapter}" "{build}/vendors/${dir}/" at)
    if(NOT at EQUAL -1)
      list(APPEND dirs ${dir})
    endif()
  endforeach()
  list(SORT dirs)
  set(${out} ${dirs} PARENT_SCOPE)
endfunction()
