# embed.cmake: writes OUT, a C file defining NAME (a NUL-terminated unsigned char array) and
# NAME_len from the bytes of IN. Run at build time: cmake -DIN=... -DOUT=... -DNAME=... -P.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n\t" bytes "${bytes}")
file(WRITE ${OUT}.tmp
  "/* Generated from ${IN} by cmake/embed.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "extern const unsigned char ${NAME}[];\n"
  "extern const size_t ${NAME}_len;\n"
  "const unsigned char ${NAME}[] = {\n\t${bytes}0x00};\n"
  "const size_t ${NAME}_len = ${len};\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
