"""Network compiler: layer-and-connect descriptions to RAP programs."""
