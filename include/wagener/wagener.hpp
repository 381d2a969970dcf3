// Umbrella header: everything a user of the library needs.
#pragma once

#include "wagener/calibration.hpp"
#include "wagener/cuda.hpp"
#include "wagener/error.hpp"
#include "wagener/generate.hpp"
#include "wagener/grouped.hpp"
#include "wagener/hull.hpp"
#include "wagener/io.hpp"
#include "wagener/output.hpp"
#include "wagener/point.hpp"
#include "wagener/predicates.hpp"
#include "wagener/render.hpp"
#include "wagener/stream.hpp"
#include "wagener/trace.hpp"
