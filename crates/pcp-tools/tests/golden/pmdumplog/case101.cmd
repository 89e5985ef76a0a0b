--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
PCP_ARCHIVE_LIST=tests/golden/pmdumplog/arch/v3,tests/golden/pmdumplog/arch/marks3
