//! dynalease
