#!/bin/sh
# The text xz compresses in the real mix (issue 29): 6000 numbered lines of
# words drawn by Park and Miller's minimal standard generator, about 370
# KB, the same bytes with any awk (every product stays below 2^53, exact in
# a double). Run by
# toolchain/build-real-programs.sh into etc/real/words.txt.
exec awk 'BEGIN {
  s = 12345
  n = split("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi " \
            "omicron pi rho sigma tau upsilon phi chi psi omega", w, " ")
  for (i = 1; i <= 6000; i++) {
    line = sprintf("%06d", i)
    count = 4 + s % 9
    for (j = 0; j < count; j++) {
      s = (s * 16807) % 2147483647
      line = line " " w[1 + int(s / 65536) % n] (int(s / 4096) % 100)
    }
    print line
  }
}'
