package field

// mulWord is the scalar K product used by the methods; the amd64 build may replace it.
var mulWord = mulGeneric
