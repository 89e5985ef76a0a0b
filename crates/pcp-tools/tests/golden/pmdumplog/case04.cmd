-l
-Z
EST-11EST-10,89/2:00,299/2:00
tests/golden/pmdumplog/arch/v3.0
--env
PCP_DERIVED_CONFIG=
TZ=UTC
LC_ALL=C
