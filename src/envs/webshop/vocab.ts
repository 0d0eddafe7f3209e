/**
 * The word lists the catalogue generator draws from: five categories named as in the real
 * catalogue, product types with their search query, `›` category path and attribute phrases in
 * the style of WebShop's annotated attributes, option groups and their values, brand syllables,
 * and instruction openers modelled on the frequencies of the 12,087 human instructions
 * ("i am looking for", "i would like", "i need", ...). Written for this project; no list is
 * taken from the benchmark files, so the embedded defaults never need them.
 */

/** Option groups a product type may offer, with the raw values the generator writes. */
export const OPTION_VALUES = {
  color: ["Black", "White", "Red", "Blue", "Green", "Pink", "Purple", "Grey", "Brown", "Beige", "Navy", "Yellow", "Orange", "Silver", "Gold", "Teal"],
  size: ["X-Small", "Small", "Medium", "Large", "X-Large", "XX-Large"],
  "shoe size": ["6", "6.5", "7", "7.5", "8", "8.5", "9", "9.5", "10", "11"],
  "item package quantity": ["Pack of 1", "Pack of 2", "Pack of 3", "Pack of 6", "Pack of 12"],
  flavor: ["Original", "Chocolate", "Vanilla", "Strawberry", "Honey", "Sea Salt", "Peanut Butter", "Cinnamon", "Mixed Berry"],
  scent: ["Lavender", "Unscented", "Coconut", "Eucalyptus", "Citrus", "Fresh Linen", "Sandalwood"],
  capacity: ["32GB", "64GB", "128GB", "256GB", "512GB"],
  length: ["3 Feet", "6 Feet", "10 Feet", "15 Feet"],
  material: ["Oak", "Walnut", "Bamboo", "Metal", "Rattan"],
} as const;

/** An option group name of the generator. */
export type OptionKind = keyof typeof OPTION_VALUES;

/** One kind of product. */
export type ProductTypeDef = {
  /** The product noun, as titles and instructions name it (`shampoo`, `running shoes`). */
  readonly noun: string;
  /** The raw `query` field (the search term that found the product). */
  readonly query: string;
  /** `product_category`, `›`-separated. */
  readonly path: string;
  /** Words that make titles of the same type differ. */
  readonly descriptors: readonly string[];
  /** Attribute phrases a product of this type may have (WebShop-style, lower case). */
  readonly attributes: readonly string[];
  /** Option groups a product of this type may have. */
  readonly options: readonly OptionKind[];
  /** Price range in dollars. */
  readonly price: readonly [number, number];
};

/** A category and its product types. */
export type CategoryDef = {
  readonly category: string;
  readonly types: readonly ProductTypeDef[];
};

const t = (noun: string, query: string, path: string, descriptors: string, attributes: string, options: OptionKind[], price: [number, number]): ProductTypeDef => ({
  noun, query, path, descriptors: descriptors.split(", "), attributes: attributes.split(", "), options, price,
});

/** The generator's five categories. */
export const CATEGORIES: readonly CategoryDef[] = [
  {
    category: "beauty",
    types: [
      t("shampoo", "shampoo", "Beauty & Personal Care › Hair Care › Shampoo & Conditioner › Shampoos", "argan oil, volumizing, tea tree, keratin", "sulfate free, paraben free, cruelty free, natural ingredients, color safe", ["scent", "item package quantity"], [6, 38]),
      t("lipstick", "lipstick", "Beauty & Personal Care › Makeup › Lips › Lipstick", "matte, satin, velvet, creamy", "long lasting, cruelty free, paraben free, highly pigmented, easy to apply", ["color"], [5, 29]),
      t("face moisturizer", "face moisturizers", "Beauty & Personal Care › Skin Care › Face › Creams & Moisturizers", "hydrating, vitamin c, hyaluronic acid, daily", "fragrance free, dermatologist tested, sensitive skin, anti aging, oil free", ["item package quantity"], [9, 58]),
      t("hair dryer", "hair dryers", "Beauty & Personal Care › Hair Care › Styling Tools › Hair Dryers", "ionic, compact, salon, ceramic", "fast drying, travel size, low noise, easy to use, lightweight", ["color"], [19, 119]),
      t("nail polish", "nail polish", "Beauty & Personal Care › Foot, Hand & Nail Care › Nail Art & Polish › Nail Polish", "gel, glossy, quick dry, chip resistant", "long lasting, quick dry, non toxic, chip resistant, easy to apply", ["color", "item package quantity"], [4, 22]),
      t("body wash", "body wash", "Beauty & Personal Care › Personal Care › Bath & Bathing Accessories › Body Washes", "moisturizing, foaming, exfoliating, gentle", "sulfate free, natural ingredients, sensitive skin, paraben free, cruelty free", ["scent", "item package quantity"], [5, 26]),
      t("makeup brush set", "makeup brushes", "Beauty & Personal Care › Tools & Accessories › Makeup Brushes & Tools › Brush Sets", "synthetic, professional, foundation, vegan", "cruelty free, easy to clean, travel size, soft bristles, high quality", ["color"], [8, 45]),
      t("sunscreen", "sunscreen", "Beauty & Personal Care › Skin Care › Sunscreens & Tanning Products › Sunscreens", "spf 50, mineral, broad spectrum, sport", "water resistant, fragrance free, reef safe, sensitive skin, non greasy", ["item package quantity"], [7, 32]),
    ],
  },
  {
    category: "fashion",
    types: [
      t("t-shirt", "men's t-shirts", "Clothing, Shoes & Jewelry › Men › Clothing › Shirts › T-Shirts", "crew neck, cotton, graphic, v-neck", "machine wash, short sleeve, cotton blend, relaxed fit, tagless", ["color", "size"], [9, 35]),
      t("hoodie", "hoodies", "Clothing, Shoes & Jewelry › Women › Clothing › Fashion Hoodies & Sweatshirts", "fleece, pullover, zip up, oversized", "machine wash, long sleeve, fleece lined, relaxed fit, drawstring closure", ["color", "size"], [18, 60]),
      t("running shoes", "running shoes", "Clothing, Shoes & Jewelry › Men › Shoes › Athletic › Running", "mesh, lightweight, breathable, trail", "non slip, arch support, rubber sole, breathable mesh, lightweight", ["color", "shoe size"], [29, 120]),
      t("jeans", "women's jeans", "Clothing, Shoes & Jewelry › Women › Clothing › Jeans", "skinny, high waist, stretch, bootcut", "machine wash, high waist, button closure, slim fit, stretch fabric", ["color", "size"], [19, 79]),
      t("dress", "dresses", "Clothing, Shoes & Jewelry › Women › Clothing › Dresses › Casual", "floral, maxi, wrap, summer", "hand wash, elastic waist, long sleeve, button closure, relaxed fit", ["color", "size"], [19, 69]),
      t("sandals", "women's sandals", "Clothing, Shoes & Jewelry › Women › Shoes › Sandals › Flat", "flat, strappy, platform, slide", "non slip, rubber sole, arch support, open toe, adjustable strap", ["color", "shoe size"], [15, 55]),
      t("rain jacket", "rain jackets", "Clothing, Shoes & Jewelry › Men › Clothing › Jackets & Coats › Rain", "waterproof, hooded, packable, windbreaker", "water resistant, zip closure, packable design, machine wash, adjustable hood", ["color", "size"], [29, 99]),
      t("socks", "socks", "Clothing, Shoes & Jewelry › Men › Clothing › Socks › Athletic", "cushioned, ankle, crew, wool", "machine wash, moisture wicking, cushioned sole, quality materials, arch support", ["color", "item package quantity"], [7, 28]),
    ],
  },
  {
    category: "grocery",
    types: [
      t("protein bars", "protein bars", "Grocery & Gourmet Food › Snack Foods › Bars › Protein Bars", "chewy, crunchy, whey, nut", "gluten free, high protein, low sugar, individually wrapped, plant based", ["flavor", "item package quantity"], [12, 45]),
      t("coffee beans", "whole bean coffee", "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Coffee › Whole Coffee Beans", "dark roast, medium roast, arabica, espresso", "non gmo, fair trade, low acid, certified organic, freshly roasted", ["item package quantity"], [9, 40]),
      t("green tea", "green tea", "Grocery & Gourmet Food › Beverages › Coffee, Tea & Cocoa › Tea › Green", "matcha, jasmine, loose leaf, sencha", "non gmo, sugar free, certified organic, low calorie, individually wrapped", ["flavor", "item package quantity"], [5, 25]),
      t("beef jerky", "beef jerky", "Grocery & Gourmet Food › Meat & Seafood › Jerky", "smoked, teriyaki, peppered, grass fed", "high protein, gluten free, low fat, ready to eat, keto friendly", ["flavor", "item package quantity"], [8, 36]),
      t("granola", "granola", "Grocery & Gourmet Food › Breakfast Foods › Cereals › Granola", "crunchy, oat, almond, maple", "gluten free, non gmo, plant based, dairy free, low sugar", ["flavor", "item package quantity"], [5, 24]),
      t("olive oil", "olive oil", "Grocery & Gourmet Food › Pantry Staples › Cooking Oils › Olive Oil", "extra virgin, cold pressed, greek, italian", "non gmo, certified organic, gluten free, keto friendly, first cold press", ["item package quantity"], [9, 42]),
      t("cookies", "cookies", "Grocery & Gourmet Food › Snack Foods › Cookies", "soft baked, shortbread, oatmeal, chocolate chip", "individually wrapped, dairy free, gluten free, sugar free, ready to eat", ["flavor", "item package quantity"], [4, 22]),
      t("baby food pouches", "baby food", "Grocery & Gourmet Food › Baby Foods › Pouches", "organic, fruit, veggie, puree", "non gmo, certified organic, no added sugar, dairy free, ready to eat", ["flavor", "item package quantity"], [10, 34]),
    ],
  },
  {
    category: "electronics",
    types: [
      t("earbuds", "wireless earbuds", "Electronics › Headphones, Earbuds & Accessories › Earbuds", "in-ear, sport, mini, stereo", "noise cancelling, wireless bluetooth, long battery life, water resistant, fast charging", ["color"], [15, 149]),
      t("usb cable", "usb c cable", "Electronics › Computers & Accessories › Cables & Accessories › Cables › USB Cables", "braided, type c, charging, data", "fast charging, high speed, data transfer, plug and play, tangle free", ["color", "length"], [5, 25]),
      t("power bank", "portable charger", "Electronics › Cell Phones & Accessories › Chargers & Power Adapters › Portable Power Banks", "slim, 20000mah, dual output, compact", "fast charging, long battery life, usb port, compact design, led display", ["color"], [15, 60]),
      t("security camera", "security camera", "Electronics › Camera & Photo › Video Surveillance › Surveillance Cameras", "outdoor, indoor, night vision, 1080p", "night vision, motion detection, easy to install, water resistant, high definition", ["item package quantity"], [25, 180]),
      t("memory card", "micro sd card", "Electronics › Computers & Accessories › Memory Cards › Micro SD Cards", "micro sd, class 10, ultra, extreme", "high speed, water resistant, easy to use, plug and play, large capacity", ["capacity"], [7, 60]),
      t("bluetooth speaker", "bluetooth speaker", "Electronics › Portable Audio & Video › Portable Bluetooth Speakers", "portable, outdoor, stereo, bass", "wireless bluetooth, water resistant, long battery life, stereo sound, usb port", ["color"], [19, 130]),
      t("hdmi cable", "hdmi cable", "Electronics › Television & Video › Accessories › Cables › HDMI Cables", "4k, 8k, braided, gold plated", "high speed, high definition, gold plated, plug and play, easy to install", ["length", "item package quantity"], [6, 30]),
      t("wireless mouse", "wireless mouse", "Electronics › Computers & Accessories › Computer Accessories & Peripherals › Keyboards, Mice & Accessories › Mice", "ergonomic, silent, rechargeable, optical", "wireless bluetooth, long battery life, plug and play, usb port, silent click", ["color"], [9, 45]),
    ],
  },
  {
    category: "garden",
    types: [
      t("coffee table", "coffee tables", "Home & Kitchen › Furniture › Living Room Furniture › Tables › Coffee Tables", "rustic, modern, lift top, round", "living room, easy to assemble, solid wood, storage space, easy to clean", ["material", "color"], [69, 399]),
      t("throw pillow covers", "throw pillow covers", "Home & Kitchen › Home Décor Products › Decorative Pillows, Inserts & Covers › Throw Pillow Covers", "velvet, linen, boho, farmhouse", "living room, machine wash, super soft, hidden zipper, easy to clean", ["color", "item package quantity"], [9, 35]),
      t("planter", "planters", "Patio, Lawn & Garden › Gardening & Lawn Care › Pots, Planters & Container Accessories › Planters", "ceramic, hanging, self watering, large", "drainage hole, weather resistant, easy to clean, indoor outdoor, eco friendly", ["color", "size"], [12, 70]),
      t("shower curtain", "shower curtains", "Home & Kitchen › Bath › Bathroom Accessories › Shower Curtains, Hooks & Liners › Shower Curtains", "fabric, waterproof, striped, hotel", "machine wash, water resistant, easy to clean, rust proof, heavy duty", ["color"], [10, 40]),
      t("bookshelf", "bookshelves", "Home & Kitchen › Furniture › Home Office Furniture › Bookcases", "ladder, industrial, 5 tier, corner", "easy to assemble, storage space, living room, heavy duty, space saving", ["material", "color"], [49, 259]),
      t("garden hose", "garden hose", "Patio, Lawn & Garden › Gardening & Lawn Care › Watering Equipment › Garden Hoses", "expandable, flexible, lightweight, kink free", "heavy duty, leak proof, weather resistant, easy to store, lightweight", ["length", "color"], [19, 89]),
      t("bath towels", "bath towels", "Home & Kitchen › Bedding & Bath › Bath › Towels › Bath Towels", "cotton, quick dry, plush, oversized", "quick dry, highly absorbent, machine wash, super soft, eco friendly", ["color", "item package quantity"], [15, 60]),
      t("storage bins", "storage bins", "Home & Kitchen › Storage & Organization › Baskets, Bins & Containers › Storage Bins", "fabric, stackable, foldable, clear", "space saving, easy to clean, eco friendly, heavy duty, living room", ["color", "item package quantity"], [12, 48]),
    ],
  },
];

/** Every attribute phrase of every product type, once (the derived-goal lexicon also starts here). */
export const ALL_ATTRIBUTES: readonly string[] = [...new Set(CATEGORIES.flatMap((c) => c.types.flatMap((ty) => ty.attributes)))];

/** Syllables brand names are built from. */
export const BRAND_SYLLABLES: readonly string[] = [
  "ka", "lo", "mi", "ra", "vex", "zen", "tor", "bel", "nu", "qua", "sol", "dri", "fen", "gla", "mor",
  "pix", "tru", "vel", "yo", "zor", "an", "ex", "lu", "ren", "sa", "ti", "vo", "ber", "cal", "dax",
];

/** Openers of generated instructions, each with a relative weight (human-goal frequencies, rounded). */
export const INSTRUCTION_OPENERS: readonly (readonly [string, number])[] = [
  ["i am looking for", 28], ["im looking for", 15], ["i would like", 12], ["i need", 12], ["i want", 12],
  ["find me", 3], ["i am interested in", 3], ["get me", 2], ["can you find me", 2], ["help me find", 1],
  ["i am searching for", 1], ["buy me", 1],
];

/** Bullet sentences that fit any product (the `About this item` filler of real listings). */
export const FILLER_BULLETS: readonly string[] = [
  "Satisfaction guaranteed: contact us with any question and we will reply within 24 hours",
  "Makes a thoughtful gift for birthdays, holidays and everyday use",
  "Designed and tested by our team for reliable everyday performance",
  "Package includes the item shown and a simple instruction card",
  "Compact packaging that reduces waste and protects the product in transit",
];
